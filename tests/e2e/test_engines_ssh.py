"""The ssh recipes of docs/distributed.md, for real: GNU parallel and pdsh start 4
shards over ssh (a throwaway sshd on 127.0.0.1 with its own host key,
authorized_keys and port; the hosts load1..load4 all lead to it), each waits for one
--start-at, the reports come back with scp, and the merged counts are the server's.
A failing shard shows in the exit code: pdsh -S returns the highest remote code,
GNU parallel the number of failed jobs.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from conftest import PACER_BIN
from engines import assert_merged_matches_server, merge, need, sshd

pytestmark = pytest.mark.no_sanitizer

HOSTS = ["load1", "load2", "load3", "load4"]


@pytest.fixture(scope="module")
def ssh(tmp_path_factory, pacer_bin):
    need("parallel", "pdsh", "scp")
    with sshd(tmp_path_factory.mktemp("sshd"), HOSTS) as server:
        yield server


def start_at() -> str:
    return f"{time.time() + 6:.3f}"  # room for 4 ssh start-ups on a loaded machine


def collect(ssh, remote: Path, local: Path) -> None:
    """scp each host's report back, as one would from real machines."""
    local.mkdir()
    for i, host in enumerate(HOSTS):
        out = subprocess.run(["scp", "-q", "-F", str(ssh.ssh_config), f"{host}:{remote}/shard-{i}.json", str(local)],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr


def parallel_shards(ssh, remote: Path, url: str, *load: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["parallel", "--ssh", f"ssh -F {ssh.ssh_config}", "-S", ",".join(f"1/{h}" for h in HOSTS), "--halt", "never",
         PACER_BIN, "--shard", "{}/4", "--start-at", start_at(), *load, "--format", "json",
         "-o", f"{remote}/shard-{{}}.json", url, ":::", "0", "1", "2", "3"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def pdsh_shards(ssh, remote: Path, url: str, *load: str) -> subprocess.CompletedProcess:
    # pdsh's exec module runs ssh itself and puts the host's rank in %n.
    return subprocess.run(
        ["pdsh", "-S", "-R", "exec", "-w", ",".join(HOSTS), "ssh", "-F", str(ssh.ssh_config), "%h", PACER_BIN,
         "--shard", "%n/4", "--start-at", start_at(), *load, "--format", "json", "-o", f"{remote}/shard-%n.json",
         url],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("tool", [parallel_shards, pdsh_shards], ids=["parallel", "pdsh"])
def test_ssh_shards_merge_to_the_servers_count(ssh, server, tmp_path, tool):
    remote = tmp_path / "remote"
    remote.mkdir()
    out = tool(ssh, remote, server.url, "-t1", "-c8", "-n", "4000")
    assert out.returncode == 0, f"exit {out.returncode}\n{out.stdout}\n{out.stderr}"
    collect(ssh, remote, tmp_path / "collected")
    assert_merged_matches_server(merge(tmp_path / "collected", 4), server, 0, expected=4000)


def test_a_failing_shard_shows_in_the_exit_code(ssh, server, tmp_path):
    remote = tmp_path / "remote"
    remote.mkdir()
    # Too few connections for 4 shards (-c 2) fails every shard with exit 2: pdsh -S
    # returns that code, GNU parallel the number of jobs that failed.
    out = pdsh_shards(ssh, remote, server.url, "-c2", "-n", "100")
    assert out.returncode == 2, f"pdsh exited {out.returncode}\n{out.stderr}"
    assert "ssh exited with exit code 2" in out.stderr, out.stderr
    out = parallel_shards(ssh, remote, server.url, "-c2", "-n", "100")
    assert out.returncode == 4, f"parallel exited {out.returncode}\n{out.stderr}"
