"""The suite's own rules (suite_rules.py) can fail: a test that runs pacer with
threads sharing state but lacks the tsan marker fails after it ran, a marked one
passes, and the rule reads pacer's command lines as pacer does."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from suite_rules import tsan_reason

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("argv, threaded", [
    (["-t1", "-c4", "-n", "10", "URL"], False),
    (["-t", "1", "URL"], False),
    (["-c1", "URL"], False),                      # -t2 by default, capped by -c
    (["-n", "10", "URL"], True),                  # -t2 -c10 by default
    (["-t4", "-c2", "URL"], True),
    (["--threads=3", "-c", "8", "URL"], True),
    (["-t1", "-c1", "--web", "127.0.0.1:0", "URL"], True),
    (["-t1", "-c1", "--interval", "100ms", "URL"], True),
    (["-t1", "-c1", "--repeat", "3", "URL"], True),
    (["-t1", "-c1", "--shard", "0/2", "URL"], True),
    (["--check-args", "-t4", "URL"], False),      # answers and exits
    (["serve", "--listen", "127.0.0.1:0", "-t", "1"], False),
    (["serve", "--listen", "127.0.0.1:0"], True),  # serve's two threads by default
    (["report", "a.json", "--html", "x.html"], False),
])
def test_the_rule_reads_threads_connections_and_own_threads(argv, threaded):
    assert (tsan_reason(argv) is not None) == threaded, tsan_reason(argv)


def _session(tmp_path: Path, marker: str) -> subprocess.CompletedProcess:
    """A pytest session of one test that starts a stand-in 'pacer' with -t2."""
    tmp_path.mkdir()
    fake = tmp_path / "pacer"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["suite_rules"]\n')
    (tmp_path / "test_one.py").write_text(textwrap.dedent(f"""
        import subprocess
        import pytest
        import suite_rules

        {marker}
        def test_runs_two_workers():
            subprocess.run([suite_rules.PACER_BIN, "-t2", "-c4", "-n", "1", "http://127.0.0.1:9/"], check=True)
    """))
    env = dict(os.environ, PACER_BIN=str(fake), PYTHONPATH=str(HERE))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(tmp_path / "test_one.py")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)


def test_an_unmarked_threaded_test_fails_and_a_marked_one_passes(tmp_path):
    unmarked = _session(tmp_path / "unmarked", "")
    assert unmarked.returncode == 1, unmarked.stdout + unmarked.stderr
    assert "mark it @pytest.mark.tsan" in unmarked.stdout and "2 workers (-t 2, -c 4)" in unmarked.stdout
    marked = _session(tmp_path / "marked", "@pytest.mark.tsan")
    assert marked.returncode == 0, marked.stdout + marked.stderr
