"""--config FILE and PACER_* (issue 27): a file, environment variables and flags
combined as documented (command line > environment > file), --print-config says
where each setting came from, and a misspelled key or a bad variable exits 2
naming it. Only one run sends traffic (0.5 s)."""

from __future__ import annotations

import pytest
import json
import os

pytestmark = pytest.mark.tsan


def env_with(**pacer_vars: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PACER_") or k in ("PACER_BIN",)}
    env.update(pacer_vars)
    return env


def test_file_environment_and_flags_combine_command_line_first(server, pacer, tmp_path):
    config = tmp_path / "pacer.toml"
    config.write_text(f'connections = 3\nthreads = 2\nduration = "5s"\nheader = ["X-From: file"]\nurl = "{server.url}"\n')
    env = env_with(PACER_DURATION="0.5s", PACER_THREADS="1", PACER_FORMAT="json")
    run = pacer("--config", str(config), "-c", "2", env=env, timeout=30)
    assert run.rc == 0, run
    report = json.loads(run.stdout)
    assert report["config"]["connections"] == 2, "the command line's -c"
    assert report["config"]["threads"] == 1, "the environment's"
    assert report["duration_s"] < 2, "the environment's 0.5s, not the file's 5s"
    assert report["counts"]["responses"] > 0

    shown = pacer("--config", str(config), "-c", "2", "--print-config", env=env, timeout=20)
    assert shown.rc == 0, shown
    lines = shown.stdout.splitlines()
    assert 'connections = 2  # command line' in lines, shown.stdout
    assert 'threads = 1  # environment PACER_THREADS' in lines, shown.stdout
    assert f'header = "X-From: file"  # {config}:4' in lines, shown.stdout
    assert not any(line.startswith("connections") and "pacer.toml" in line for line in lines), shown.stdout


def test_a_misspelled_key_names_the_key_and_its_line(pacer, tmp_path):
    config = tmp_path / "pacer.toml"
    config.write_text('connections = 3\n\nconections = 4\n')
    run = pacer("--config", str(config), "http://127.0.0.1:9/", env=env_with(), timeout=20)
    assert run.rc == 2, run
    assert f"{config}:3: unknown key 'conections'" in run.stderr, run


def test_a_bad_variable_or_value_names_where_it_came_from(pacer, tmp_path):
    run = pacer("http://127.0.0.1:9/", env=env_with(PACER_TIMEOUT="soon"), timeout=20)
    assert run.rc == 2 and run.stderr.startswith("pacer: environment PACER_TIMEOUT (timeout): --timeout"), run
    run = pacer("http://127.0.0.1:9/", env=env_with(PACER_LATENCY="maybe"), timeout=20)
    assert run.rc == 2 and "PACER_LATENCY: --latency is a flag" in run.stderr, run
    config = tmp_path / "pacer.toml"
    config.write_text('connections = 0\n')
    run = pacer("--config", str(config), "http://127.0.0.1:9/", env=env_with(), timeout=20)
    assert run.rc == 2 and f"{config}:1 (connections): --connections" in run.stderr, run
