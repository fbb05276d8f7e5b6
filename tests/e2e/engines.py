"""Throwaway engines for the cluster tests (test_engines_*.py): a one-machine Slurm
(munged, slurmctld, slurmd) and an sshd on 127.0.0.1, each under a temp folder and
on its own ports, started as subprocesses this module owns and stopped whatever
happens (context managers). Also the helpers every engine test shares: the shard
command line, merging the shards' reports and checking them against the server.

The packages come from scripts/setup.sh (slurmctld slurmd slurm-client munge
openssh-server ...); a missing one fails the test with its name.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from conftest import PACER_BIN

DAEMON_START_S = 20.0


def need(*programs: str) -> None:
    """Fail (not skip: CI must run these) when a program is missing."""
    missing = [p for p in programs if not shutil.which(p) and not os.path.exists(p)]
    assert not missing, f"missing {', '.join(missing)}: run scripts/setup.sh (it installs the engines' packages)"


def free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def die_with_parent() -> None:
    """preexec_fn: the kernel sends SIGTERM to this daemon if pytest itself is
    killed (a ctest timeout), so no daemon outlives the test run."""
    import ctypes
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)


def stop_process(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after `timeout`; always reaped."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def wait_until(check, timeout: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise AssertionError(f"{what} did not happen within {timeout}s\n{tail}")
        time.sleep(0.05)


# ------------------------------------------------------------------------ Slurm


SLURM_CONF = """\
ClusterName=pacertest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={munge_socket}
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


@contextlib.contextmanager
def munged():
    """A private munged, run as user munge from /run/munge (its own socket, pid,
    seed and log files there, so it neither meets nor stops a system munged)."""
    need("/usr/sbin/munged", "munge", "unmunge")
    run_dir = Path("/run/munge")
    run_dir.mkdir(mode=0o755, exist_ok=True)
    shutil.chown(run_dir, "munge", "munge")
    name = f"pacer-test-{os.getpid()}"
    files = {k: run_dir / f"{name}.{k}" for k in ("socket", "pid", "seed", "log")}
    proc = subprocess.Popen(
        ["/usr/sbin/munged", "-F", "--force", f"--socket={files['socket']}", f"--pid-file={files['pid']}",
         f"--seed-file={files['seed']}", f"--log-file={files['log']}"],
        user="munge", group="munge", extra_groups=[], preexec_fn=die_with_parent, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def answers() -> bool:
            assert proc.poll() is None, f"munged exited: {proc.stderr.read().decode(errors='replace')}"
            ok = subprocess.run(f"munge -n -S {files['socket']} | unmunge -S {files['socket']}", shell=True,
                                capture_output=True, timeout=10)
            return ok.returncode == 0
        wait_until(answers, DAEMON_START_S, "munged answering", files["log"])
        yield files["socket"]
    finally:
        stop_process(proc)
        for f in files.values():
            f.unlink(missing_ok=True)


class Slurm:
    """slurmctld and slurmd in the foreground, configured under `root`."""

    def __init__(self, root: Path, munge_socket: Path):
        self.root = root
        (root / "state").mkdir()
        (root / "spool").mkdir()
        ctld_port, slurmd_port = free_ports(2)
        self.conf = root / "slurm.conf"
        self.conf.write_text(SLURM_CONF.format(host=socket.gethostname().split(".")[0], ctld_port=ctld_port,
                                               slurmd_port=slurmd_port, root=root, munge_socket=munge_socket,
                                               cpus=os.cpu_count() or 1))
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))
        self.procs: list[subprocess.Popen] = []

    def start(self) -> None:
        for daemon in ("slurmctld", "slurmd"):
            args = [f"/usr/sbin/{daemon}", "-D"] + (["-i"] if daemon == "slurmctld" else [])
            self.procs.append(subprocess.Popen(args, env=self.env, preexec_fn=die_with_parent, stdin=subprocess.DEVNULL,
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

        def idle() -> bool:
            for p in self.procs:
                assert p.poll() is None, f"{p.args[0]} exited with {p.returncode}: {self.logs()}"
            out = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True,
                                 timeout=10)
            return out.stdout.strip() == "idle"
        wait_until(idle, DAEMON_START_S, "the Slurm node becoming idle", self.root / "slurmctld.log")

    def run(self, *args: str, timeout: float = 120.0, cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), env=self.env, capture_output=True, text=True, timeout=timeout,
                              cwd=cwd or self.root)

    def sbatch(self, *args: str, timeout: float = 120.0) -> list[tuple[str, str]]:
        """sbatch ARGS, then wait for the job (every task of an array) to end by
        polling scontrol, faster than sbatch --wait's backoff. Returns each task's
        (JobState, ExitCode), e.g. ("COMPLETED", "0:0")."""
        out = self.run("sbatch", "--parsable", *args)
        assert out.returncode == 0, f"sbatch exited {out.returncode}: {out.stderr}"
        job_id = out.stdout.strip().split(";")[0]
        deadline = time.monotonic() + timeout
        while True:
            show = self.run("scontrol", "-o", "show", "job", job_id, timeout=30)
            tasks = [dict(f.split("=", 1) for f in line.split() if "=" in f) for line in show.stdout.splitlines()]
            states = [(t.get("JobState", "?"), t.get("ExitCode", "?")) for t in tasks]
            if tasks and all(state not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING") for state, _ in states):
                return states
            assert time.monotonic() < deadline, f"job {job_id} still running after {timeout}s: {show.stdout}"
            time.sleep(0.2)

    def logs(self) -> str:
        return "".join(f"--- {n}:\n{(self.root / n).read_text(errors='replace')[-2000:]}"
                       for n in ("slurmctld.log", "slurmd.log") if (self.root / n).exists())

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            subprocess.run(["scontrol", "shutdown"], env=self.env, capture_output=True, timeout=10)
        for p in self.procs:
            stop_process(p)


@contextlib.contextmanager
def slurm_cluster(root: Path):
    need("/usr/sbin/slurmctld", "/usr/sbin/slurmd", "srun", "sbatch", "scontrol", "sinfo")
    with munged() as socket_path:
        cluster = Slurm(root, socket_path)
        try:
            cluster.start()
            yield cluster
        finally:
            cluster.stop()


# -------------------------------------------------------------------------- sshd


SSHD_CONFIG = """\
ListenAddress 127.0.0.1
Port {port}
HostKey {root}/host_ed25519
AuthorizedKeysFile {root}/authorized_keys
PidFile {root}/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp /usr/lib/openssh/sftp-server
"""

SSH_CONFIG = """\
Host {hosts}
  HostName 127.0.0.1
  Port {port}
  User {user}
  IdentityFile {root}/client_ed25519
  IdentitiesOnly yes
  StrictHostKeyChecking yes
  UserKnownHostsFile {root}/known_hosts
  BatchMode yes
"""


class Sshd:
    """sshd -D on 127.0.0.1 with its own host key, authorized_keys and port; the
    names in `hosts` all lead to it through the client config `ssh_config`."""

    def __init__(self, root: Path, hosts: list[str]):
        need("/usr/sbin/sshd", "ssh", "ssh-keygen")
        self.root = root
        self.hosts = hosts
        (self.port,) = free_ports(1)
        for key in ("host_ed25519", "client_ed25519"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(root / key)], check=True,
                           timeout=30)
        shutil.copy(root / "client_ed25519.pub", root / "authorized_keys")
        host_key = (root / "host_ed25519.pub").read_text().split()
        (root / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_key[0]} {host_key[1]}\n")
        (root / "sshd_config").write_text(SSHD_CONFIG.format(port=self.port, root=root))
        self.ssh_config = root / "ssh_config"
        import pwd
        user = pwd.getpwuid(os.getuid()).pw_name
        self.ssh_config.write_text(SSH_CONFIG.format(hosts=" ".join(hosts), port=self.port, user=user, root=root))
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
        self.log = root / "sshd.log"
        self.proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-f", str(root / "sshd_config"), "-E", str(self.log)],
                                     preexec_fn=die_with_parent, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def answers() -> bool:
            assert self.proc.poll() is None, f"sshd exited: {self.log.read_text(errors='replace')}"
            return subprocess.run(["ssh", "-F", str(self.ssh_config), hosts[0], "true"], capture_output=True,
                                  timeout=10).returncode == 0
        try:
            wait_until(answers, DAEMON_START_S, "ssh to the throwaway sshd", self.log)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        stop_process(self.proc)


@contextlib.contextmanager
def sshd(root: Path, hosts: list[str]):
    server = Sshd(root, hosts)
    try:
        yield server
    finally:
        server.stop()


# ---------------------------------------------------------- shards and merging


def shard_script(reports: Path, index_var: str, pacer: str = PACER_BIN) -> str:
    """`sh -c` text that runs pacer --shard auto with the rest of its arguments
    ("$@") and writes the report to REPORTS/shard-$INDEX_VAR.json."""
    return f'exec {pacer} --shard auto --format json -o "{reports}/shard-${{{index_var}}}.json" "$@"'


def merge(reports: Path, count: int) -> dict:
    files = sorted(str(p) for p in reports.glob("shard-*.json"))
    assert len(files) == count, f"expected {count} shard reports in {reports}, found {files}"
    out = subprocess.run([PACER_BIN, "merge", "--format", "json", *files], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def shard_sources(reports: Path) -> dict[int, str]:
    docs = [json.loads(p.read_text()) for p in reports.glob("shard-*.json")]
    return {d["config"]["shard"]["index"]: d["config"]["shard"].get("source", "") for d in docs}


def assert_merged_matches_server(merged: dict, server, baseline: int, expected: int | None = None) -> None:
    """The merged responses are the server's (since `baseline`), and `expected` if given."""
    responses = merged["counts"]["responses"]
    if expected is not None:
        assert responses == expected, merged["counts"]
    answered = server.wait_for("requests_answered", baseline + responses) - baseline
    assert answered == responses, f"server answered {answered}, merged report has {responses}"
