"""pacer merge: shards' JSON reports combined into one exact report."""

import json
import pathlib

import jsonschema
import pytest

SCHEMA = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "report.schema.json").read_text())

SHARDS = 3
PER_SHARD = 300


@pytest.fixture
def shard_files(server, pacer, tmp_path):
    """Three runs of -n 300 against one server, each writing shardN.json."""
    paths = []
    for i in range(SHARDS):
        path = tmp_path / f"shard{i}.json"
        run = pacer("-t1", "-c2", "-n", str(PER_SHARD), "--format", "json", "-o", str(path), server.url, timeout=30)
        assert run.rc == 0, run
        paths.append(path)
    return paths


def test_merged_json_counts_every_shard_and_matches_the_server(server, pacer, shard_files):
    run = pacer("merge", "--format", "json", *map(str, shard_files))
    assert run.rc == 0, run
    doc = json.loads(run.stdout)  # nothing but JSON on stdout
    jsonschema.validate(doc, SCHEMA)
    total = SHARDS * PER_SHARD
    assert doc["counts"]["responses"] == total
    assert doc["status_codes"] == {"200": total}
    assert doc["latency"]["count"] == total
    assert doc["config"]["connections"] == 2 * SHARDS
    assert doc["config"]["requests"] == total
    assert server.wait_for("requests_answered", total) == total
    shards = [json.loads(p.read_text()) for p in shard_files]
    assert doc["duration_s"] == max(s["duration_s"] for s in shards)
    assert doc["latency"]["max_ns"] >= max(s["latency"]["max_ns"] for s in shards)
    assert doc["latency"]["min_ns"] <= min(s["latency"]["min_ns"] for s in shards)


def test_merged_text_report_is_wrks_layout(pacer, shard_files, tmp_path):
    out = tmp_path / "merged.json"
    run = pacer("merge", "--latency", "-o", str(out), "--format", "json", *map(str, shard_files))
    assert run.rc == 0, run
    report = run.report  # with -o, stdout carries the text report
    assert report.requests == SHARDS * PER_SHARD
    assert report.threads == SHARDS and report.connections == 2 * SHARDS
    assert report.status_codes == {200: SHARDS * PER_SHARD}
    assert report.latency is not None and report.req_sec is not None
    assert "50%" in report.distribution
    assert json.loads(out.read_text())["counts"]["responses"] == SHARDS * PER_SHARD


def test_a_truncated_report_is_refused_naming_the_file(pacer, shard_files):
    broken = shard_files[1]
    broken.write_text(broken.read_text()[:500])
    run = pacer("merge", *map(str, shard_files))
    assert run.rc == 2, run
    assert str(broken) in run.stderr, run
    assert run.stdout == ""


def test_a_missing_file_or_no_file_is_refused(pacer, shard_files, tmp_path):
    run = pacer("merge", str(shard_files[0]), str(tmp_path / "nope.json"))
    assert run.rc == 2, run
    assert "nope.json" in run.stderr
    run = pacer("merge")
    assert run.rc == 2, run
    assert "give at least one report file" in run.stderr


def test_shards_of_different_urls_need_force(server, pacer, shard_files, tmp_path):
    other = tmp_path / "other.json"
    run = pacer("-t1", "-c2", "-n", "50", "--format", "json", "-o", str(other), server.url + "bytes/10", timeout=30)
    assert run.rc == 0, run
    run = pacer("merge", str(shard_files[0]), str(other))
    assert run.rc == 2, run
    assert "differ in url" in run.stderr and str(other) in run.stderr, run
    run = pacer("merge", "--force", "--format", "json", str(shard_files[0]), str(other))
    assert run.rc == 0, run
    assert json.loads(run.stdout)["counts"]["responses"] == PER_SHARD + 50
