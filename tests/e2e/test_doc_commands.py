"""Every `pacer …` command shown in a fenced block of README.md and docs/*.md runs as
written (issue 31), adapted mechanically to this machine:

- hosts and ports: 8080 (any host) is a `pacer serve` started here, 8443 its HTTPS twin
  with the certificate `pacer cert --out /tmp/certs` wrote (that command runs first);
- durations: every -d (and --web-linger) becomes 500ms, and a run without -d or -n
  gets one (the default is 10s), so the whole file takes seconds;
- --web without an address gets 127.0.0.1:0 (the default port may be taken here);
- paths: /tmp/certs and the shard reports of `pacer merge` live in the test's
  directory (the reports are written by two shards run first); examples/ is the
  repository's;
- `pacer serve … &` lines are the servers above, started once.

Skipped, each with its reason in SKIPPED: nothing today; a command that needs a cluster
(mpirun, srun, kubectl, ssh) is not a line starting with `pacer`, so it is not
collected. A command that fails here fails CI: fix the doc or the code.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import socket
import subprocess

import pytest

from conftest import PACER_BIN, REPO, PacerServer

pytestmark = pytest.mark.no_sanitizer

SKIPPED: dict[str, str] = {}


def unused_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # command -> why it cannot run here


def doc_commands() -> list[tuple[str, str]]:
    out = []
    for path in ["README.md", *sorted(os.path.relpath(p, REPO) for p in glob.glob(str(REPO / "docs" / "*.md")))]:
        text = (REPO / path).read_text()
        for lang, block in re.findall(r"```([a-z]*)\n(.*?)```", text, re.S):
            if lang == "text":
                continue  # what a command prints, not a command
            block = re.sub(r"\\\n\s*", " ", block)
            for line in block.splitlines():
                line = line.strip().removeprefix("$ ")
                if re.match(r"^pacer(\s|$)", line):
                    out.append((path, re.sub(r"\s+#.*$", "", line).rstrip(" &")))
    return out


COMMANDS = doc_commands()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The servers, the certificate and the shard reports the commands refer to."""
    work = tmp_path_factory.mktemp("docs")
    (work / "examples").symlink_to(REPO / "examples")
    certs = work / "certs"
    made = subprocess.run([PACER_BIN, "cert", "--out", str(certs)], capture_output=True, text=True, timeout=30)
    assert made.returncode == 0, made.stderr
    http = PacerServer()
    https_port = unused_port()
    https = subprocess.Popen([PACER_BIN, "serve", "--listen", f"127.0.0.1:{https_port}", "--tls",
                              str(certs / "cert.pem"), str(certs / "key.pem")], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        port = http.url.rsplit(":", 1)[1].strip("/")
        for d in ("reports", "shared/reports", "."):
            (work / d).mkdir(parents=True, exist_ok=True)
            for i in range(2):
                shard = subprocess.run([PACER_BIN, "--shard", f"{i}/2", "-c2", "-d", "300ms", "--format", "json", "-o",
                                        str(work / d / f"shard-{i}.json"), http.url], capture_output=True,
                                       text=True, timeout=30)
                assert shard.returncode == 0, shard.stderr
        yield {"work": work, "port": port, "https_port": str(https_port)}
    finally:
        https.terminate()
        https.wait(10)
        http.stop()


def adapt(command: str, site: dict) -> list[str]:
    work = site["work"]
    command = re.sub(r"(https?://)[\w.-]*:8443", rf"\g<1>127.0.0.1:{site['https_port']}", command)
    command = re.sub(r"(https?://)[\w.-]*:8080", rf"\g<1>127.0.0.1:{site['port']}", command)
    command = command.replace("/tmp/certs", str(work / "certs")).replace("/shared/", str(work / "shared") + "/")
    args = shlex.split(command)[1:]
    args = [str(p) for a in args for p in (sorted(glob.glob(str(work / a))) or [a] if "*" in a else [a])]
    out = []
    for i, a in enumerate(args):
        if i > 0 and args[i - 1] in ("-d", "--web-linger"):
            a = "500ms"
        elif re.fullmatch(r"-d\d+\w*", a):
            a = "-d500ms"
        out.append(a)
        if a == "--web" and (i + 1 == len(args) or args[i + 1].startswith(("-", "http"))):
            out.append("127.0.0.1:0")
    is_run = out[:1] not in (["merge"], ["serve"], ["cert"], ["report"], ["demo"])
    if is_run and not any(re.fullmatch(r"-d\S*|-n\S*|--duration|--requests|--stages", a) for a in out):
        out[:0] = ["-d", "500ms"]
    return out


@pytest.mark.tsan
@pytest.mark.parametrize("doc,command", COMMANDS, ids=[f"{d}:{c[:60]}" for d, c in COMMANDS])
def test_the_command_runs_as_written(doc, command, site):
    if command in SKIPPED:
        pytest.skip(SKIPPED[command])
    args = adapt(command, site)
    if args[:1] == ["serve"] or args[:1] == ["cert"]:
        return  # the site's servers and certificate are these very commands, already run
    run = subprocess.run([PACER_BIN, *args], cwd=site["work"], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert run.returncode == 0, f"{doc}: {command}\nran: {args}\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"


def test_the_commands_were_found():
    assert len(COMMANDS) >= 10, COMMANDS
