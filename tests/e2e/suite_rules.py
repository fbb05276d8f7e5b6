"""Rules every end-to-end test is held to after it ran, and the markers that decide
where a test runs (docs/testing.md). Loaded by conftest.py as a pytest plugin.

- No sanitizer report: a TSan or ASan build writes its reports to files, and the
  test during which one appeared fails (the exit code alone would miss a report
  from a process whose status no test checks: `pacer serve`, a run stopped by a
  signal, a run expected to fail).
- No false alarm of the client's own verdict (issue 28).
- Every test whose pacer processes run threads that share state is marked `tsan`,
  so the ThreadSanitizer pass, which runs only the marked tests, cannot miss one.

The markers:
- tsan: runs in the ThreadSanitizer pass too. Required (checked after each test)
  when a pacer process of the test runs more than one worker thread (-t, by
  default 2, capped by -c), a thread of its own beside its workers (--web, the
  live view, --repeat, --interval or --timeseries sampling, a Prometheus push,
  --server-metrics scraping), shards, or when the test sends it a signal.
- no_sanitizer: what no sanitizer changes (docs, man pages, manifests, packaging,
  the pages in Chromium, cluster launchers, Locust's own CSV): the uninstrumented
  pass only.
- alone: timing-sensitive (pacing, shapes, verdicts, the connect burst, the
  footprint): run with no other test beside it.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

PACER_BIN = os.environ.get("PACER_BIN") or str(Path(__file__).resolve().parents[2] / "build" / "debug" / "pacer")


def pytest_configure(config):
    for line in (
        "tsan_allows(kind, reason): this test may make TSan report `kind` (e.g. 'thread leak'), for the reason given",
        "client_verdict_expected: this test makes pacer blame itself (issue 28)",
        "tsan: runs pacer with threads that share state; the ThreadSanitizer pass runs it (suite_rules.py)",
        "no_sanitizer: checks what no sanitizer changes; the uninstrumented pass only (suite_rules.py)",
        "alone: timing-sensitive; runs with no other test beside it (suite_rules.py)",
    ):
        config.addinivalue_line("markers", line)


# ------------------------------------------------------------- what the test started

_STARTED: list[list[str]] = []          # argv (after the binary) of each pacer process started
_OUTPUTS: list[tuple[list[str], str]] = []  # argv and stdout of each pacer process read to its end
_SIGNALLED: list[tuple[list[str], int]] = []  # argv and signal of each signal sent to a pacer process


def _pacer_argv(args) -> list[str] | None:
    argv = list(args) if isinstance(args, (list, tuple)) else [str(args)]
    if argv and str(argv[0]) == PACER_BIN:
        return [str(a) for a in argv[1:]]
    return None


class _WatchedPopen(subprocess.Popen):
    """subprocess.Popen that notes the pacer processes a test starts, what they
    printed on stdout (communicate()) and the signals the test sends them."""

    def __init__(self, args, *rest, **kwargs):
        super().__init__(args, *rest, **kwargs)
        argv = _pacer_argv(args)
        if argv is not None:
            _STARTED.append(argv)

    def communicate(self, *args, **kwargs):
        out, err = super().communicate(*args, **kwargs)
        argv = _pacer_argv(self.args)
        if argv is not None and out:
            text = out.decode("utf-8", "replace") if isinstance(out, bytes) else out
            _OUTPUTS.append((argv, text))
        return out, err

    def send_signal(self, sig):
        argv = _pacer_argv(self.args)
        if argv is not None and self.returncode is None:
            _SIGNALLED.append((argv, int(sig)))
        super().send_signal(sig)


subprocess.Popen = _WatchedPopen  # subprocess.run looks Popen up in its module at each call

_os_kill = os.kill


def _watched_kill(pid: int, sig: int) -> None:
    """os.kill that notes a signal sent to a pacer process started some other way
    (in tmux, through a shell)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if cmdline and cmdline[0].decode(errors="replace") == PACER_BIN:
            _SIGNALLED.append(([a.decode(errors="replace") for a in cmdline[1:] if a], int(sig)))
    except OSError:
        pass
    _os_kill(pid, sig)


os.kill = _watched_kill


@pytest.fixture(autouse=True)
def _watch_pacer_processes():
    _STARTED.clear()
    _OUTPUTS.clear()
    _SIGNALLED.clear()
    yield


# ------------------------------------------------------------------ sanitizer reports

# The sanitizers' options are inherited by every process a test starts; options
# already in the environment are kept.
SANITIZER_LOG_DIR = tempfile.mkdtemp(prefix="pacer-sanitizer-")
atexit.register(shutil.rmtree, SANITIZER_LOG_DIR, True)
for _variable in ("TSAN_OPTIONS", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
    os.environ[_variable] = " ".join(
        o for o in (os.environ.get(_variable, ""), f"log_path={SANITIZER_LOG_DIR}/report") if o)


def is_sanitized(path: str) -> bool:
    try:
        data = Path(path).read_bytes()
    except OSError:
        return False
    return b"__asan_init" in data or b"__tsan_init" in data


SANITIZED = is_sanitized(PACER_BIN)


@pytest.fixture(autouse=True)
def no_sanitizer_report(request):
    """Fails the test if a process it started wrote a sanitizer report (other than
    the kind its tsan_allows marker names)."""
    yield
    reports = sorted(Path(SANITIZER_LOG_DIR).glob("report*"))
    if not reports:
        return
    texts = [r.read_text(errors="replace") for r in reports]
    for r in reports:
        r.unlink()
    allowed = request.node.get_closest_marker("tsan_allows")
    if allowed is not None:
        kind = f"WARNING: ThreadSanitizer: {allowed.args[0]} "
        texts = [t for t in texts if any(block and not block.lstrip().startswith(kind)
                                         for block in t.split("==================") if "WARNING" in block)]
    if texts:
        pytest.fail("a sanitizer reported:\n" + "\n".join(texts), pytrace=False)


# ------------------------------------------------------ the client's own verdict

# pacer blames itself ("Bottleneck: the client: worker 1 was busy 98 % of the run",
# issue 28) when a worker was busy most of the run. After each test, every pacer
# run it started through subprocess (run_pacer, subprocess.run, a Popen whose output
# is read with communicate(), webview.WebRun) whose JSON report the test can read
# (stdout, or -o FILE) and that says `saturated` must be backed by the worker's own
# clock: its thread CPU plus its time queued for a CPU cover at least 80 % of its
# run (issue 43: pacer names its own machine when it was queued a quarter of the
# run and so covered, whatever its busy share). One worker running flat out against a server on this 2-core machine (a debug
# build's Lua, TLS, 10 MB bodies) is rightly blamed, and such runs pass; a verdict
# that the worker's CPU does not back fails the test, unless the test makes pacer
# blame itself on purpose (marked client_verdict_expected). A run whose JSON is not
# at hand (text only) is not checked. Under a sanitizer pacer is several times
# slower than the servers it loads: the check is off there.
_CPU_BACKED = 0.8


def _json_report(args: list[str], stdout: str) -> dict | None:
    """The run's JSON report: its stdout, or the -o file of a --format json run."""
    try:
        doc = json.loads(stdout)
        if isinstance(doc, dict):
            return doc
    except ValueError:
        pass
    for flag in ("-o", "--output"):
        if flag in args and "json" in args:
            i = args.index(flag)
            try:
                path = Path(args[i + 1])
                if not path.is_file():  # a FIFO or a device (the tests of -o's kinds): never opened here
                    return None
                doc = json.loads(path.read_text())
                return doc if isinstance(doc, dict) else None
            except (IndexError, OSError, ValueError):
                return None
    return None


def unbacked_verdict(args: list[str], stdout: str) -> str | None:
    """Why the run's client verdict is a false alarm, or None."""
    doc = _json_report(args, stdout)
    runs = doc.get("runs", [doc]) if doc is not None and doc.get("schema") == "pacer-repeat" else [doc]
    for d in runs:
        client = d.get("client") if isinstance(d, dict) else None
        if not isinstance(client, dict) or not client.get("saturated"):
            continue
        workers = [w for w in client.get("workers", []) if w.get("wall_s")]
        backed = [(w.get("cpu_share") or 0) + (w.get("runnable_s") or 0) / w["wall_s"] for w in workers]
        if not backed or max(backed) < _CPU_BACKED:
            return (f"saturated, but no worker's thread CPU and CPU queueing cover {_CPU_BACKED:.0%} of its run: "
                    f"{client.get('workers')}; verdicts {client.get('verdicts')}")
    return None


@pytest.fixture(autouse=True)
def no_client_verdict(request, _watch_pacer_processes):
    """Fails a test whose pacer runs blamed the client without their CPU backing it."""
    yield
    if SANITIZED or request.node.get_closest_marker("client_verdict_expected") is not None:
        return
    for args, stdout in list(_OUTPUTS):
        why = unbacked_verdict(args, stdout)
        if why:
            pytest.fail(f"pacer {' '.join(args)} blamed the client, a false alarm: {why}", pytrace=False)


# ------------------------------------------------------------ what TSan must see

_SUBCOMMANDS = {"serve", "cert", "report", "merge", "demo"}
# Options that start a thread of pacer's own beside its workers, or a process of shards.
_OWN_THREADS = {
    "--web": "the web view's thread", "--repeat": "--repeat's runs", "--interval": "--interval's sampling",
    "--timeseries": "--timeseries' sampling", "--live": "the live view", "--shard": "shards",
    "--prometheus-remote-write": "the Prometheus pusher", "--server-metrics": "the server-metrics scraper",
}
_DEFAULT_THREADS = 2       # src/core/config.h: Config::threads
_DEFAULT_CONNECTIONS = 10  # src/core/config.h: Config::connections


def _option_value(argv: list[str], short: str, long: str) -> str | None:
    """The last value given to -X / -XN / --long / --long=V in argv."""
    value = None
    for i, a in enumerate(argv):
        if a in (short, long) and i + 1 < len(argv):
            value = argv[i + 1]
        elif a.startswith(long + "="):
            value = a.split("=", 1)[1]
        elif short and a.startswith(short) and len(a) > len(short) and not a.startswith("--"):
            value = a[len(short):]
    return value


def _count(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


def tsan_reason(argv: list[str]) -> str | None:
    """Why a pacer process started with `argv` runs threads that share state, or None."""
    if any(a in argv for a in ("--check-args", "--print-config", "--help", "-h", "--version", "-v")):
        return None  # answers and exits before anything starts
    for a in argv:
        name = a.split("=", 1)[0]
        if name in _OWN_THREADS:
            return _OWN_THREADS[name]
    command = argv[0] if argv and argv[0] in _SUBCOMMANDS else None
    if command == "serve":
        threads = _count(_option_value(argv, "-t", "--threads"), 2)
        return f"pacer serve -t {threads}" if threads >= 2 else None
    if command in ("cert", "report", "merge"):
        return None
    threads = _count(_option_value(argv, "-t", "--threads"), _DEFAULT_THREADS)
    connections = _count(_option_value(argv, "-c", "--connections"), _DEFAULT_CONNECTIONS)
    if min(threads, connections) >= 2:
        return f"{min(threads, connections)} workers (-t {threads}, -c {connections})"
    return None


def tsan_reasons() -> list[str]:
    """Why the current test needs the ThreadSanitizer pass, so far."""
    reasons = [f"pacer {' '.join(argv)}: {why}" for argv in _STARTED if (why := tsan_reason(argv))]
    reasons += [f"pacer {' '.join(argv)}: signal {signal.Signals(sig).name}"
                for argv, sig in _SIGNALLED
                if sig != signal.SIGKILL and not (argv and argv[0] == "serve")]
    return reasons


@pytest.fixture(autouse=True)
def marked_for_tsan(request, _watch_pacer_processes):
    """Fails a test that runs pacer with threads sharing state but is not marked tsan."""
    yield
    if request.node.get_closest_marker("tsan") is not None:
        return
    reasons = tsan_reasons()
    if reasons:
        text = "\n  ".join(reasons[:5]).encode("utf-8", "backslashreplace").decode()  # xdist sends it as UTF-8
        pytest.fail("this test runs threads that share state, so the ThreadSanitizer pass must run it: "
                    "mark it @pytest.mark.tsan (suite_rules.py)\n  " + text, pytrace=False)
