"""The live view in a real terminal (tmux, on a private socket) and plain progress
lines without one. Every wait polls a condition against a deadline: the machines
running these are small and busy, so the deadlines are generous."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
import uuid

import pytest

from conftest import PACER_BIN, assert_server_agrees, parse_report

WIDTH, HEIGHT = 100, 40
ELAPSED = re.compile(r"\]  (\d+\.\d)s / ")  # after the progress bar, under a minute
PLAIN_LINE = re.compile(r"^\[\s*\d+\.\ds / \d+\.\ds\] (?:[0-9.]+ req/s|drain \S+ after the end: \d+ responses), .*$", re.M)


class Tmux:
    """One tmux server on its own socket and one pane running pacer from a shell,
    which prints pacer's exit status and then stays (so the terminal's state after
    pacer can be read from a live pane)."""

    def __init__(self):
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed (scripts/setup.sh installs it)")
        self.socket = f"pacer-e2e-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def tmux(self, *args: str) -> str:
        proc = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              capture_output=True, timeout=20, text=True)
        assert proc.returncode == 0, f"tmux {' '.join(args)}: {proc.stderr}"
        return proc.stdout

    def start(self, shell_command: str) -> None:
        self.tmux("new-session", "-d", "-s", "t", "-x", str(WIDTH), "-y", str(HEIGHT),
                  f"{shell_command}; echo pacer-exit=$?; exec sleep 600")

    def screen(self, escapes: bool = False) -> str:
        return self.tmux("capture-pane", "-p", "-J", *(["-e"] if escapes else []), "-t", "t")

    def show(self, fmt: str) -> str:
        return self.tmux("display-message", "-p", "-t", "t", fmt).strip()

    def pacer_pid(self) -> int:
        """pacer, the child of the pane's shell."""
        shell = int(self.show("#{pane_pid}"))
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == shell:
                return int(entry)
        raise AssertionError(f"no child of the pane's shell {shell}")

    def wait_until(self, condition, what: str, timeout: float = 60.0):
        """Polls condition() (every 50 ms) until it returns something truthy."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}; screen:\n{self.screen()}")

    def wait_for_exit(self, timeout: float = 90.0) -> int:
        m = self.wait_until(lambda: re.search(r"^pacer-exit=(\d+)$", self.screen(), re.M), "pacer to exit", timeout)
        return int(m.group(1))

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)


@pytest.fixture
def tmux():
    t = Tmux()
    yield t
    t.kill()


def pacer_command(*args: str, env: dict[str, str] | None = None, redirect: str = "") -> str:
    """A shell command running pacer with a UTF-8 locale and colour allowed."""
    settings = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", **(env or {})}
    unset = "" if "NO_COLOR" in settings else "-u NO_COLOR "
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in settings.items())
    return f"env {unset}{assignments} {shlex.quote(PACER_BIN)} {' '.join(map(shlex.quote, args))} {redirect}"


def elapsed_on(screen: str) -> float | None:
    m = ELAPSED.search(screen)
    return float(m.group(1)) if m else None


# A row per 500 ms needs the controller to keep up with the view's 100 ms intervals: a
# loaded machine merges two into one longer row (report/interval_sum.h), so alone.
@pytest.mark.alone
def test_the_live_view_advances_during_the_run_and_leaves_the_report_on_a_restored_terminal(tmux, server, tmp_path):
    series = tmp_path / "series.ndjson"
    tmux.start(pacer_command("-t1", "-c4", "-d", "4s", "--interval", "500ms", "--timeseries", str(series), server.url))

    first = tmux.wait_until(lambda: (e := elapsed_on(tmux.screen())) is not None and (e,), "the progress bar")[0]
    during = tmux.screen()
    assert "Requests/s" in during and "Latency" in during and "Connections" in during, during
    assert tmux.show("#{alternate_on}") == "1"
    assert tmux.show("#{cursor_flag}") == "0"  # hidden while the view is up
    later = tmux.wait_until(lambda: (e := elapsed_on(tmux.screen())) is not None and e > first and e,
                            "the elapsed time to advance")
    assert later > first

    assert tmux.wait_for_exit() == 0, tmux.screen()
    after = tmux.screen()
    assert tmux.show("#{alternate_on}") == "0", after
    assert tmux.show("#{cursor_flag}") == "1", after
    assert "Ctrl-C stops" not in after  # the view is gone; the shell's screen is back
    report = parse_report(after)
    assert report.target == "4s test"
    assert report.requests > 0
    assert_server_agrees(server, report)

    # The view asked the engine for 100 ms intervals; the time series still has one
    # row per 500 ms that add up to the report. Each row closes the 500 ms boundary
    # it reaches; a row is longer only where the controller fell behind and a
    # worker's 100 ms intervals were one longer interval (src/report/interval_sum.h),
    # and then the next row ends on the grid again.
    rows = [json.loads(line) for line in series.read_text().splitlines()]
    assert [r["interval"] for r in rows] == list(range(len(rows)))
    assert len(rows) == 9, rows  # 4 s of 500 ms rows, then the drain's own
    for r in rows[:-1]:
        boundary, end = 0.5 * (r["interval"] + 1), r["start_s"] + r["duration_s"]
        assert r["start_s"] < boundary <= end + 1e-9 and end < boundary + 0.5 and not r["drain"], r
        assert abs(end * 10 - round(end * 10)) < 1e-6, r  # on the engine's 100 ms grid
    assert all(abs(a["start_s"] + a["duration_s"] - b["start_s"]) < 1e-9 for a, b in zip(rows, rows[1:])), rows
    assert rows[0]["start_s"] == 0 and sum(r["duration_s"] for r in rows[:-1]) == pytest.approx(4.0), rows
    assert rows[-1]["drain"] and abs(rows[-1]["start_s"] - 4.0) < 1e-9, rows[-1]
    assert sum(r["completed"] for r in rows) == report.requests
    assert max(r["open_connections"] for r in rows) == 4


@pytest.mark.tsan
def test_ctrl_c_in_the_live_view_restores_the_terminal_and_prints_the_partial_report(tmux, server):
    tmux.start(pacer_command("-t1", "-c2", "-d", "60s", server.url))
    # Until a response is on screen (a TSan build takes a while to get the first one).
    tmux.wait_until(lambda: elapsed_on(tmux.screen()) is not None and "Latency" in tmux.screen()
                    and re.search(r"(?<![0-9.])(?!0 )[0-9.]+[kMG]? responses", tmux.screen()), "a response in the live view")
    os.kill(tmux.pacer_pid(), signal.SIGINT)  # as Ctrl-C does

    assert tmux.wait_for_exit() == 130, tmux.screen()
    after = tmux.screen()
    assert tmux.show("#{alternate_on}") == "0", after
    assert tmux.show("#{cursor_flag}") == "1", after
    assert "Interrupted:" in after, after
    assert parse_report(after).requests > 0


@pytest.mark.tsan
@pytest.mark.tsan_allows("thread leak", reason="the second signal _exits at once by design, without joining the "
                        "workers; under TSan, _exit reports the finished ones not yet joined")
def test_a_second_signal_exits_at_once_and_still_restores_the_terminal(tmux, server):
    tmux.start(pacer_command("-t1", "-c2", "-d", "60s", server.url))
    tmux.wait_until(lambda: elapsed_on(tmux.screen()) is not None, "the live view")
    pid = tmux.pacer_pid()
    os.kill(pid, signal.SIGINT)
    os.kill(pid, signal.SIGTERM)  # a different signal, so the two are not merged

    status = tmux.wait_for_exit()
    assert status in (130, 143), tmux.screen()  # 143: the second one won the race
    assert tmux.show("#{alternate_on}") == "0", tmux.screen()
    assert tmux.show("#{cursor_flag}") == "1", tmux.screen()


@pytest.mark.tsan
def test_colour_marks_errors_unless_no_color_is_set(tmux, server):
    url = server.url + "status/500"
    tmux.start(pacer_command("-t1", "-c2", "-d", "30s", url))
    coloured = tmux.wait_until(lambda: (s := tmux.screen(escapes=True)) and "status " in s and "\x1b[31m" in s and s,
                               "errors in red")
    assert re.search(r"\x1b\[31mstatus \d+", coloured), coloured
    os.kill(tmux.pacer_pid(), signal.SIGINT)
    tmux.wait_for_exit()
    tmux.kill()

    plain = Tmux()
    try:
        plain.start(pacer_command("-t1", "-c2", "-d", "30s", url, env={"NO_COLOR": "1"}))
        screen = plain.wait_until(lambda: (s := plain.screen(escapes=True)) and "status " in s and s, "errors")
        assert "\x1b[31m" not in screen and "\x1b[33m" not in screen, screen
        os.kill(plain.pacer_pid(), signal.SIGINT)
        plain.wait_for_exit()
    finally:
        plain.kill()


def test_stdout_to_a_file_in_a_terminal_gives_plain_lines_there_and_a_clean_file(tmux, server, tmp_path):
    out = tmp_path / "report.txt"
    tmux.start(pacer_command("-t1", "-c2", "-d", "2s", "--interval", "500ms", server.url,
                             redirect=f"> {shlex.quote(str(out))}"))
    assert tmux.wait_for_exit() == 0, tmux.screen()
    screen = tmux.screen()
    assert len(PLAIN_LINE.findall(screen)) >= 3, screen  # the progress lines, on stderr
    data = out.read_bytes()
    assert b"\x1b" not in data and b"\r" not in data, data
    assert parse_report(data.decode()).requests > 0


@pytest.mark.tsan
def test_a_piped_run_writes_one_plain_line_per_interval_on_stderr_and_no_escape_sequence(server):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(TERM="xterm-256color", LANG="C.UTF-8")
    proc = subprocess.run([PACER_BIN, "-t1", "-c2", "-d", "2s", "--interval", "500ms", server.url],
                          stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0, proc
    assert b"\x1b" not in proc.stdout + proc.stderr
    assert b"\r" not in proc.stdout + proc.stderr
    stderr = proc.stderr.decode()
    lines = PLAIN_LINE.findall(stderr)
    assert len(lines) == 5, stderr  # 2 s / 500 ms, then the drain's block
    assert "drain" in lines[-1] and not any("drain" in line for line in lines[:-1]), lines
    assert "[  0.5s / 2.0s]" in lines[0], lines
    report = parse_report(proc.stdout.decode())  # stdout is the report alone
    assert report.requests > 0
    assert not PLAIN_LINE.search(proc.stdout.decode())


def test_plain_in_a_terminal_never_switches_screens(tmux, server):
    tmux.start(pacer_command("--plain", "-t1", "-c2", "-d", "2s", "--interval", "500ms", server.url))
    deadline = time.monotonic() + 90
    while "pacer-exit=" not in tmux.screen() and time.monotonic() < deadline:
        assert tmux.show("#{alternate_on}") == "0", tmux.screen()
        time.sleep(0.05)
    assert tmux.wait_for_exit() == 0
    screen = tmux.screen()
    assert len(PLAIN_LINE.findall(screen)) >= 3, screen
    assert parse_report(screen).requests > 0
