"""--format json and -o: valid against docs/report.schema.json, consistent with the server."""

import json
import os
import pathlib

import jsonschema
import pytest

SCHEMA = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "report.schema.json").read_text())


def validate(doc: dict) -> None:
    jsonschema.validate(doc, SCHEMA)


def test_json_on_stdout_is_only_json_and_matches_the_schema(server, pacer):
    run = pacer("-t1", "-c2", "-n", "300", "--format", "json", server.url, timeout=30)
    assert run.rc == 0, run
    doc = json.loads(run.stdout)  # no header or text around it
    validate(doc)
    assert doc["counts"]["responses"] == 300
    assert doc["status_codes"] == {"200": 300}
    assert doc["config"]["load_model"] == "closed"
    assert doc["latency"]["count"] == 300
    assert server.wait_for("requests_answered", 300) == 300


def test_open_model_json_has_rates_and_the_extra_histograms(server, pacer, tmp_path):
    out = tmp_path / "report.json"
    run = pacer("-t1", "-c4", "-R", "1000", "-d", "1s", "--format", "json", "-o", str(out), server.url, timeout=30)
    assert run.rc == 0, run
    assert "Requests/sec:" in run.stdout, run  # people still get the text report
    doc = json.loads(out.read_text())
    validate(doc)
    assert doc["config"]["load_model"] == "constant"
    assert doc["counts"]["scheduled"] == 1000
    assert doc["rates"]["target_per_s"] == pytest.approx(1000, rel=0.02)
    assert doc["service_time"]["count"] == doc["counts"]["responses"]
    assert doc["queue_delay"]["count"] == doc["counts"]["responses"]
    assert not [p for p in os.listdir(tmp_path) if ".tmp." in p]  # the temporary file was renamed


def test_timeouts_are_marked_as_lower_bounds_in_json(server, pacer):
    run = pacer("-t1", "-c2", "-d", "1s", "--timeout", "200ms", "--format", "json", server.url + "never", timeout=30)
    assert run.rc == 1, run
    doc = json.loads(run.stdout)
    validate(doc)
    assert doc["no_request_succeeded"] is True
    assert doc["errors"]["timeout"] == doc["latency"]["censored_count"] > 0
    assert "50" in doc["latency"]["lower_bound_percentiles"]


def test_failed_gate_is_in_the_json(server, pacer):
    run = pacer("-t1", "-c1", "-n", "20", "--slo", "p50<1ms", "--format", "json", server.url + "delay/20", timeout=30)
    assert run.rc == 3, run
    doc = json.loads(run.stdout)
    validate(doc)
    assert doc["gates"]["passed"] is False
    assert doc["gates"]["failures"][0].startswith("gate failed: p50<1ms")


@pytest.mark.tsan
def test_output_into_a_missing_directory_is_refused_before_the_run(server, pacer, tmp_path):
    run = pacer("-n", "10", "-o", str(tmp_path / "missing" / "r.json"), server.url, timeout=30)
    assert run.rc == 2, run
    assert "-o: cannot create" in run.stderr, run
    assert server.stats()["requests_answered"] == 0


@pytest.mark.tsan
def test_unknown_format_is_refused(server, pacer):
    run = pacer("--format", "xml", server.url, timeout=30)
    assert run.rc == 2, run
    assert "--format: format must be 'text' or 'json', got 'xml'" in run.stderr, run


def test_hdr_writes_the_percentile_distribution(server, pacer, tmp_path):
    out = tmp_path / "latency.hgrm"
    run = pacer("-t1", "-c2", "-n", "500", "--hdr", str(out), server.url, timeout=30)
    assert run.rc == 0, run
    lines = out.read_text().splitlines()
    assert lines[0].split() == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"]
    assert lines[-2].startswith("#[Max     =") and lines[-2].split()[-1] == "500]", lines[-2]
    # the last percentile row reaches 1.0 with every sample counted
    rows = [l.split() for l in lines[1:] if l.strip() and not l.startswith("#")]
    assert float(rows[-1][1]) == 1.0 and int(rows[-1][2]) == 500


def test_json_histograms_are_lossless_hdr_v2(server, pacer):
    run = pacer("-t1", "-c2", "-n", "200", "--format", "json", server.url, timeout=30)
    doc = json.loads(run.stdout)
    validate(doc)
    import base64
    raw = base64.b64decode(doc["latency"]["histogram"])
    assert raw[:3] == bytes([0x1C, 0x84, 0x93]), raw[:4]  # the V2 compressed cookie


def test_golden_json_reports_match_the_schema():
    golden = pathlib.Path(__file__).resolve().parents[1] / "golden"
    files = sorted(golden.glob("report_*.json"))
    assert files, "no golden JSON reports found"
    for path in files:
        validate(json.loads(path.read_text()))
