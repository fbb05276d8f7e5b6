"""pacer's shards on a real Slurm (22.05 from Debian) on this one machine: srun runs
4 shards with --shard auto against `pacer serve`, pacer merge combines them, and the
merged counts are the server's; deploy/slurm/pacer.sbatch runs as written; a failing
shard makes srun fail; and the merged run agrees with one process of the same load.

One Slurm (munged, slurmctld, slurmd) serves the whole module and is shut down
(scontrol shutdown, then the processes) whatever happens. srun needs --overcommit:
4 tasks on 2 CPUs would otherwise queue forever.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PACER_BIN, REPO
from engines import assert_merged_matches_server, merge, shard_script, shard_sources, slurm_cluster

pytestmark = pytest.mark.no_sanitizer

SRUN = ["srun", "-n", "4", "--overcommit", "--kill-on-bad-exit=1", "--time=5"]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory, pacer_bin):
    with slurm_cluster(tmp_path_factory.mktemp("slurm")) as cluster:
        yield cluster


def srun_shards(slurm, reports: Path, *pacer_args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    reports.mkdir(exist_ok=True)
    return slurm.run(*SRUN, "sh", "-c", shard_script(reports, "SLURM_PROCID"), "shard", *pacer_args,
                     timeout=timeout)


def test_srun_closed_loop_shards_merge_to_the_servers_count(slurm, server, tmp_path):
    out = srun_shards(slurm, tmp_path, "-t1", "-c8", "-n", "4000", server.url)
    assert out.returncode == 0, f"srun exited {out.returncode}\n{out.stderr}\n{slurm.logs()}"
    assert shard_sources(tmp_path) == {i: "SLURM_PROCID" for i in range(4)}
    merged = merge(tmp_path, 4)
    assert merged["config"]["connections"] == 8
    assert_merged_matches_server(merged, server, 0, expected=4000)


def test_srun_open_model_shards_merge_to_the_servers_count(slurm, server, tmp_path):
    out = srun_shards(slurm, tmp_path, "-t1", "-c8", "-R", "400", "-d", "2s", server.url)
    assert out.returncode == 0, f"srun exited {out.returncode}\n{out.stderr}"
    merged = merge(tmp_path, 4)
    # 400/s over 2 s in all, not each: the 4 shards send 1 arrival in 4 (a few may
    # be in flight at the end, a loaded machine may fall a little behind).
    assert 720 <= merged["counts"]["responses"] <= 800, merged["counts"]
    assert_merged_matches_server(merged, server, 0)


def test_a_failing_shard_makes_srun_fail_and_says_which(slurm, server, tmp_path):
    # Task 2 gets a URL pacer refuses (exit 2); the others run normally.
    script = ('url=$1; shift; [ "$SLURM_PROCID" = 2 ] && url=ftp://nowhere/; '
              + shard_script(tmp_path, "SLURM_PROCID") + ' "$url"')
    out = slurm.run(*SRUN, "sh", "-c", script, "shard", server.url, "-t1", "-c4", "-n", "200")
    # srun returns the highest exit code of its tasks and names the task that failed.
    # --kill-on-bad-exit stops the tasks still running with SIGTERM: pacer then
    # exits 143, which is the highest when one of them was not done yet.
    assert out.returncode in (2, 143), f"srun exited {out.returncode}\n{out.stderr}"
    assert "task 2: Exited with exit code 2" in out.stderr, out.stderr
    if out.returncode == 143:
        assert "Exited with exit code 143" in out.stderr, out.stderr


def test_the_sbatch_script_runs_the_shards_then_the_merge(slurm, server, tmp_path):
    reports = tmp_path / "reports"
    script = REPO / "deploy" / "slurm" / "pacer.sbatch"
    env_args = f"--export=ALL,PACER={PACER_BIN},REPORTS={reports}"
    states = slurm.sbatch("-n", "4", "--overcommit", "--time=5", env_args, "-o", str(tmp_path / "job.out"),
                          str(script), "-t1", "-c8", "-n", "2000", server.url)
    job_out = (tmp_path / "job.out").read_text(errors="replace") if (tmp_path / "job.out").exists() else ""
    assert states == [("COMPLETED", "0:0")], f"{states}\n{job_out}"
    merged = json.loads((reports / "merged.json").read_text())
    assert_merged_matches_server(merged, server, 0, expected=2000)
    assert "2000 requests in" in job_out, job_out  # the merged text report is in the job's output


def test_the_sbatch_script_exits_with_the_failed_shards_code(slurm, server, tmp_path):
    script = REPO / "deploy" / "slurm" / "pacer.sbatch"
    env_args = f"--export=ALL,PACER={PACER_BIN},REPORTS={tmp_path / 'reports'}"
    # -c 2 cannot be split over 4 shards: every shard exits 2, so does the job
    # (or 143, should --kill-on-bad-exit stop a shard before it got that far).
    states = slurm.sbatch("-n", "4", "--overcommit", "--time=5", env_args, "-o", str(tmp_path / "job.out"),
                          str(script), "-c2", "-n", "100", server.url)
    assert states in ([("FAILED", "2:0")], [("FAILED", "143:0")]), (tmp_path / "job.out").read_text(errors="replace")


def test_a_job_array_shards_by_task_id_and_meets_at_start_at(slurm, server, tmp_path):
    """sbatch --array=3-4: two separate jobs, shards 0 and 1 (ID minus MIN), which
    meet at --start-at. Each runs in a batch script, where SLURM_PROCID=0 but no
    SLURM_STEP_ID: that is not taken for a step's shard 0."""
    start_at = f"{time.time() + 6:.3f}"  # both array tasks start within ~2 s here
    wrap = (f'exec {PACER_BIN} --shard auto --start-at {start_at} -t1 -c4 -n 400 --format json '
            f'-o {tmp_path}/shard-$SLURM_ARRAY_TASK_ID.json {server.url}')
    states = slurm.sbatch("--array=3-4", "--time=5", "-o", str(tmp_path / "job-%a.out"), "--wrap", wrap)
    logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("job-*.out"))
    assert states == [("COMPLETED", "0:0")] * 2, f"{states}\n{logs}"
    assert shard_sources(tmp_path) == {0: "SLURM_ARRAY_TASK_ID", 1: "SLURM_ARRAY_TASK_ID"}
    assert_merged_matches_server(merge(tmp_path, 2), server, 0, expected=400)


@pytest.mark.alone
@pytest.mark.tsan
def test_merged_slurm_run_agrees_with_one_process_of_the_same_load(slurm, server, tmp_path):
    """-R 2000 for 10 s: 4 shards under srun and one process with as many threads,
    side by side against one server, so that a neighbour's burst on this shared
    machine hits both alike. The target answers after 10 ms (/delay/10), so p50 is
    the service's and not the scheduler's noise. Total within 1 %, p50 within 10 %."""
    load = ["-c64", "-R", "2000", "-d", "10s"]
    url = server.url + "delay/10"
    tmp_path.joinpath("shards").mkdir()
    shards = subprocess.Popen([*SRUN, "sh", "-c", shard_script(tmp_path / "shards", "SLURM_PROCID"), "shard", "-t1",
                               *load, url], env=slurm.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    single = subprocess.Popen([PACER_BIN, "-t4", *load, "--format", "json", url], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        single_out, single_err = single.communicate(timeout=60)
        _, shards_err = shards.communicate(timeout=60)
    finally:
        for p in (single, shards):
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
    assert shards.returncode == 0, f"srun exited {shards.returncode}\n{shards_err}"
    assert single.returncode == 0, single_err
    merged, one = merge(tmp_path / "shards", 4), json.loads(single_out)
    total_merged, total_one = merged["counts"]["responses"], one["counts"]["responses"]
    assert abs(total_merged - total_one) <= 0.01 * total_one, (total_merged, total_one)
    p50_merged = merged["latency"]["percentiles_ns"]["50"]
    p50_one = one["latency"]["percentiles_ns"]["50"]
    assert abs(p50_merged - p50_one) <= 0.10 * p50_one, (p50_merged, p50_one)
