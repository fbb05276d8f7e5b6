"""pacer's shards under MPI launchers, for real: Open MPI's mpirun and MPICH's
mpiexec.hydra (Debian installs both side by side) start 4 shards with --shard auto
against `pacer serve`; the merged counts are the server's; a failing shard makes the
launcher fail. pacer uses no MPI library: the launchers only start processes and
name their ranks in the environment (OMPI_COMM_WORLD_RANK, PMI_RANK).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from engines import assert_merged_matches_server, merge, need, shard_script, shard_sources

pytestmark = pytest.mark.no_sanitizer

# launcher command line for 4 processes, the variable naming the rank
LAUNCHERS = {
    "openmpi": (["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np", "4"], "OMPI_COMM_WORLD_RANK"),
    "mpich": (["mpiexec.hydra", "-np", "4"], "PMI_RANK"),
}


@pytest.fixture(params=sorted(LAUNCHERS))
def launcher(request, pacer_bin):
    command, rank_var = LAUNCHERS[request.param]
    need(command[0])
    return command, rank_var


def launch(launcher, script: str, *args: str) -> subprocess.CompletedProcess:
    command, _ = launcher
    # Open MPI refuses to run as root without --allow-run-as-root (given) or these.
    return subprocess.run([*command, "sh", "-c", script, "shard", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_closed_and_open_shards_merge_to_the_servers_count(launcher, server, tmp_path):
    _, rank_var = launcher
    closed, opened = tmp_path / "closed", tmp_path / "open"
    closed.mkdir()
    opened.mkdir()
    out = launch(launcher, shard_script(closed, rank_var), "-t1", "-c8", "-n", "4000", server.url)
    assert out.returncode == 0, f"{launcher[0][0]} exited {out.returncode}\n{out.stdout}\n{out.stderr}"
    assert shard_sources(closed) == {i: rank_var for i in range(4)}
    assert_merged_matches_server(merge(closed, 4), server, 0, expected=4000)

    out = launch(launcher, shard_script(opened, rank_var), "-t1", "-c8", "-R", "400", "-d", "2s", server.url)
    assert out.returncode == 0, f"{launcher[0][0]} exited {out.returncode}\n{out.stdout}\n{out.stderr}"
    merged = merge(opened, 4)
    assert 720 <= merged["counts"]["responses"] <= 800, merged["counts"]
    assert_merged_matches_server(merged, server, 4000)


def test_a_failing_shard_makes_the_launcher_fail(launcher, server, tmp_path: Path):
    command, rank_var = launcher
    # Rank 2 gets a URL pacer refuses (exit 2); the others run normally. Each rank
    # that fails says so itself: Open MPI's own "Process name: [[job,2]]" summary is
    # printed only when mpirun gets to it before it tears the job down.
    script = (f'url=$1; shift; [ "${rank_var}" = 2 ] && url=ftp://nowhere/; '
              + shard_script(tmp_path, rank_var).removeprefix("exec ") + ' "$url"'
              + f' || {{ rc=$?; echo "rank ${rank_var} exited $rc" >&2; exit $rc; }}')
    out = launch(launcher, script, server.url, "-t1", "-c4", "-n", "200")
    # Open MPI returns the first failed process's code; Hydra ORs the codes of all
    # processes (here only rank 2 fails).
    assert out.returncode == 2, f"{command[0]} exited {out.returncode}\n{out.stdout}\n{out.stderr}"
    assert "unsupported scheme 'ftp'" in out.stdout + out.stderr, out.stderr
    failed = sorted(set(re.findall(r"rank (\d+) exited (\d+)", out.stdout + out.stderr)))
    assert failed == [("2", "2")], out.stdout + out.stderr
