"""--log-requests (docs/output.md, "Per-request log"): every request a row, in CSV or
NDJSON (by the extension or --log-format), sampled by a seeded --log-sample (10% of
the rows, give or take 1%), the warm-up's rows marked; a full device (/dev/full) ends
the run with an error naming the file; bad arguments exit 2. Runs are bounded by -n."""

from __future__ import annotations

import pytest
import json
import time

from request_log_check import check_request_log, read_rows


@pytest.mark.tsan
def test_every_request_is_a_row_and_the_rows_agree_with_the_report(server, pacer, tmp_path):
    log = tmp_path / "requests.csv"
    run = pacer("-t2", "-c4", "-n", "2000", "--format", "json", "--log-requests", str(log), server.url, timeout=60)
    assert run.rc == 0, run
    doc = json.loads(run.stdout)
    rows = check_request_log(log, doc)
    assert len(rows) == 2000 == doc["counts"]["responses"]
    now_us = time.time() * 1e6
    assert all(now_us - 120e6 < r["send_unix_us"] <= now_us for r in rows), "Unix microseconds of this run"
    assert {r["worker"] for r in rows} == {0, 1}
    assert len({(r["worker"], r["connection"]) for r in rows}) == 4
    # Each connection's first request carries its connect time, the others none.
    assert sum(1 for r in rows if r["connect_ns"] is not None) == 4
    # HTTP/1.1, one request at a time per connection: the bytes are each exchange's.
    assert len({r["bytes_out"] for r in rows}) == 1 and rows[0]["bytes_out"] > 30
    assert len({r["bytes_in"] for r in rows}) == 1 and rows[0]["bytes_in"] > 13


def test_a_sample_of_a_tenth_logs_ten_percent_and_the_same_rows_each_time(server, pacer, tmp_path):
    counts = []
    for i in range(2):
        log = tmp_path / f"sample{i}.ndjson"
        run = pacer("-t1", "-c1", "-n", "20000", "--seed", "7", "--log-sample", "0.1", "--log-requests", str(log),
                    server.url, timeout=60)
        assert run.rc == 0, run
        counts.append(len(read_rows(log)))
    assert 1800 <= counts[0] <= 2200, counts
    assert counts[0] == counts[1], "a seeded sampler: the same run logs the same rows"


def test_warm_up_rows_are_marked_and_left_out_of_the_counts(server, pacer, tmp_path):
    log = tmp_path / "warm.csv"
    run = pacer("-t1", "-c2", "-R", "200", "-d", "1s", "--warmup", "300ms", "--format", "json", "--log-requests",
                str(log), "--log-format", "ndjson", server.url, timeout=60)
    assert run.rc == 0, run
    rows = [json.loads(line) for line in log.read_text().splitlines()]  # --log-format wins over the extension
    assert any(not r["recorded"] for r in rows) and any(r["recorded"] for r in rows)
    doc = json.loads(run.stdout)
    assert sum(1 for r in rows if r["recorded"] and r["status"]) == doc["counts"]["responses"]


def test_a_full_device_ends_the_run_with_an_error_naming_the_file(server, pacer):
    run = pacer("-t1", "-c1", "-n", "5000", "--log-requests", "/dev/full", server.url, timeout=60)
    assert run.rc == 1, run
    assert "--log-requests" in run.stderr and "/dev/full" in run.stderr and "No space left" in run.stderr, run


def test_a_log_not_finished_leaves_no_half_file_in_place(server, pacer, tmp_path):
    log = tmp_path / "requests.csv"
    log.write_text("an older log\n")
    run = pacer("-t1", "-c1", "-n", "10", "--log-requests", str(log), "--log-sample", "0", server.url, timeout=30)
    assert run.rc == 2 and "--log-sample" in run.stderr, run
    assert log.read_text() == "an older log\n"


@pytest.mark.tsan
def test_bad_arguments_exit_2(pacer, tmp_path):
    for args, word in ((("--log-format", "xml", "--log-requests", "x.csv"), "--log-format"),
                       (("--log-sample", "0.5"), "--log-requests"),
                       (("--log-sample", "1.5", "--log-requests", "x.csv"), "--log-sample"),
                       (("--log-requests", str(tmp_path)), "--log-requests")):
        run = pacer("-n", "1", *args, "http://127.0.0.1:1/", timeout=30)
        assert run.rc == 2 and word in run.stderr, (args, run)
