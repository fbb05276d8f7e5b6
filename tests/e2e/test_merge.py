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


def sharded_files(server, pacer, tmp_path, indexes, count=3, extra=()):
    """Shards `indexes` of a --shard i/`count` run of -n 90 -c3, as s<i>.json."""
    paths = []
    for i in indexes:
        path = tmp_path / f"s{i}.json"
        run = pacer("-t1", "-c3", "-n", "90", "--shard", f"{i}/{count}", *extra, "--format", "json", "-o", str(path),
                    server.url, timeout=30)
        assert run.rc == 0, run
        paths.append(path)
    return paths


@pytest.mark.tsan
def test_an_incomplete_set_is_refused_unless_allow_missing(server, pacer, tmp_path):
    files = sharded_files(server, pacer, tmp_path, [0, 1], extra=("-R", "600"))
    run = pacer("merge", *map(str, files))
    assert run.rc == 2, run
    assert "the test has 3 shards and shard 2 is missing" in run.stderr, run
    assert "--allow-missing" in run.stderr, run
    assert run.stdout == ""

    run = pacer("merge", "--allow-missing", *map(str, files))
    assert run.rc == 0, run
    assert "MISSING:      shard 2 of 3 (--allow-missing)" in flat(run.stdout), run
    assert "shards 0, 1 of 3: 400 of 600 requests/s, 60 of 90 requests, 2 of 3 connections." in flat(run.stdout), run
    assert "open, constant 400 requests/s" in flat(run.stdout), run

    run = pacer("merge", "--allow-missing", "--format", "json", *map(str, files))
    assert run.rc == 0, run
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert doc["merge"]["missing_shards"] == [2] and doc["merge"]["complete"] is False
    assert doc["config"]["rate_per_s"] == 400
    assert doc["config"]["shard"]["whole_test"]["rate_per_s"] == 600
    assert doc["counts"]["responses"] == 60
    assert "shards missing: 2" in run.stderr, run


@pytest.mark.tsan
def test_the_same_shard_twice_is_refused(server, pacer, tmp_path):
    files = sharded_files(server, pacer, tmp_path, [0, 1, 2])
    run = pacer("merge", str(files[0]), str(files[1]), str(files[1]))
    assert run.rc == 2, run
    assert "are both shard 1 of 3" in run.stderr, run
    run = pacer("merge", "--format", "json", *map(str, files))
    assert run.rc == 0, run
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert doc["merge"]["complete"] is True and doc["counts"]["responses"] == 90


@pytest.mark.tsan
def test_shards_of_runs_with_other_shard_counts_are_refused(server, pacer, tmp_path):
    three = sharded_files(server, pacer, tmp_path, [0], count=3)
    two = sharded_files(server, pacer, tmp_path, [1], count=2)
    run = pacer("merge", str(three[0]), str(two[0]))
    assert run.rc == 2, run
    assert "differ in shard.count" in run.stderr, run


def flat(text):
    """The text report with its wrapping (a break and the 14-column indent) read as spaces."""
    return text.replace("\n" + " " * 14, " ")


def edit(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.tsan
def test_shards_that_started_apart_are_flagged(server, pacer, tmp_path):
    files = sharded_files(server, pacer, tmp_path, [0, 1, 2])
    first = json.loads(files[0].read_text())["start_time"]
    late = first[:-7] + f"{(int(first[-7:-5]) + 3) % 60:02d}" + first[-5:]  # 3 s later (or 57 s earlier)
    edit(files[2], lambda d: d.update(start_time=late))
    for f in files[:2]:
        edit(f, lambda d: d.update(start_time=first))
    run = pacer("merge", *map(str, files))
    assert run.rc == 0, run
    assert "Start times:  the shards started" in flat(run.stdout), run
    assert "(--start-tolerance)" in flat(run.stdout), run
    run = pacer("merge", "--format", "json", *map(str, files))
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert doc["merge"]["start_times_differ"] is True
    assert doc["merge"]["start_spread_s"] >= 3
    assert "started" in run.stderr, run
    run = pacer("merge", "--start-tolerance", "60s", "--format", "json", *map(str, files))
    assert json.loads(run.stdout)["merge"]["start_times_differ"] is False, run
    assert run.stderr == "", run


@pytest.mark.tsan
@pytest.mark.parametrize(
    "field, value, named",
    [
        (("counts", "requests_sent"), 2**64 - 10, "counts.requests_sent"),
        (("status_codes", "200"), 2**64 - 10, "status_codes.200"),
        (("errors", "timeout"), 2**63, "errors.timeout"),
    ],
)
def test_sums_past_64_bits_are_refused_naming_the_file_and_field(server, pacer, tmp_path, field, value, named):
    files = sharded_files(server, pacer, tmp_path, [0, 1], count=2)
    for f in files:
        edit(f, lambda d: d[field[0]].update({field[1]: value}))
    run = pacer("merge", *map(str, files))
    assert run.rc == 2, run
    assert f"{files[1]}: {named}: the merged count would pass 2^64 - 1" in run.stderr, run
    assert run.stdout == ""
