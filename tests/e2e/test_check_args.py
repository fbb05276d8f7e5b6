"""pacer --check-args and --shard auto as a user runs them: the environment comes in
through subprocess env (the test's own is never changed)."""

from __future__ import annotations

import pytest
import os

CLEAN_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}  # no engine variables


def test_check_args_prints_what_would_run_and_opens_no_connection(server, pacer, tmp_path):
    out = tmp_path / "shard.json"
    run = pacer("--check-args", "--shard", "auto", "-c", "8", "-R", "400", "-d", "2s", "--format", "json", "-o",
                str(out), server.url, env={**CLEAN_ENV, "OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4"})
    assert run.rc == 0, run
    assert "(shard 3 of 4 from OMPI_COMM_WORLD_RANK)" in run.stdout, run
    assert f"Report:  JSON to {out}" in run.stdout, run
    assert not out.exists()
    assert server.stats()["connections_accepted"] == 0


def test_check_args_exits_2_on_what_the_run_would_refuse(pacer, server):
    run = pacer("--check-args", "--shard", "auto/4", server.url, env={**CLEAN_ENV, "JOB_COMPLETION_INDEX": "4"})
    assert run.rc == 2, run
    assert "--shard auto/4: JOB_COMPLETION_INDEX is 4, outside the 4 shards (0 to 3)" in run.stderr, run
    run = pacer("--check-args", "--shard", "auto", server.url, env=CLEAN_ENV)
    assert run.rc == 2 and "--shard auto: no engine found" in run.stderr, run


@pytest.mark.tsan
def test_a_shard_from_an_engine_that_does_not_start_them_together_gets_a_note(server, pacer):
    run = pacer("-t1", "-c4", "-n", "100", "--shard", "auto/2", server.url,
                env={**CLEAN_ENV, "NOMAD_ALLOC_INDEX": "1"}, timeout=30)
    assert run.rc == 0, run
    assert "  1 threads and 2 connections (shard 1 of 2 from NOMAD_ALLOC_INDEX)" in run.stdout, run
    assert "pacer: note: shard 1 of 2 from NOMAD_ALLOC_INDEX starts as soon as it is started" in run.stderr, run
    run = pacer("-t1", "-c4", "-n", "100", "--shard", "auto", server.url,
                env={**CLEAN_ENV, "PMI_RANK": "1", "PMI_SIZE": "2"}, timeout=30)
    assert run.rc == 0, run
    assert "note:" not in run.stderr, run
