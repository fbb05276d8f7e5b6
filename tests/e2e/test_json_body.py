"""--json and the 415 trap (issue 13, item 8).

wrk's tutorial warns that `-m POST -b '{"a":1}'` sends no Content-Type, and a JSON
API answers 415. pacer keeps -b byte-exact (no header added), adds curl's --json
(Content-Type and Accept: application/json), and when a body without a
Content-Type gets 415s, the report says why in one line. `pacer serve`'s /json
answers 415 unless the Content-Type is JSON.
"""

import pytest
import json

from conftest import assert_server_agrees

BODY = '{"a":1}'


def test_a_dash_b_body_without_content_type_gets_415_and_the_report_says_why(server, pacer, tmp_path):
    out = tmp_path / "r.json"
    run = pacer("-t1", "-c2", "-d", "1s", "-b", BODY, "--format", "json", "-o", str(out), server.url + "json",
                timeout=30)
    assert run.rc == 1, run  # not one request succeeded
    report = run.report
    assert report.status_codes.get(415, 0) == report.requests > 0, run
    hints = [line for line in run.stdout.splitlines() if line.startswith("Status 415:")]
    assert hints == ["Status 415:   the body went with no Content-Type: use --json or -H to set one"], run
    doc = json.loads(out.read_text())
    assert doc["hint"] == "status 415: the body went with no Content-Type: use --json or -H to set one", doc["hint"]
    assert_server_agrees(server, report)


def test_json_sets_the_content_type_and_the_server_accepts_it(server, pacer, tmp_path):
    out = tmp_path / "r.json"
    run = pacer("-t1", "-c2", "-d", "1s", "--json", BODY, "--format", "json", "-o", str(out), server.url + "json",
                timeout=30)
    assert run.rc == 0, run
    report = run.report
    assert report.status_codes == {200: report.requests}, run
    assert "Status 415:" not in run.stdout, run
    assert json.loads(out.read_text())["hint"] is None
    assert_server_agrees(server, report)


def test_a_content_type_given_with_dash_h_gets_no_hint_even_on_415(server, pacer):
    run = pacer("-t1", "-c1", "-d", "500ms", "-b", BODY, "-H", "Content-Type: text/plain", server.url + "json",
                timeout=30)
    assert run.report.status_codes.get(415, 0) == run.report.requests > 0, run
    assert "Status 415:" not in run.stdout, run


def test_json_sends_the_headers_and_the_body_bytes_and_dash_b_adds_none(recording_server, pacer, tmp_path):
    body_file = tmp_path / "body.json"
    body_file.write_bytes(b'{"k": "\xc3\xa9"}\n')
    rec = recording_server
    run = pacer("-t1", "-c1", "-n", "1", "--json", "@" + str(body_file), rec.url, timeout=30)
    assert run.rc == 0, run
    with_json = rec.wait_for_requests(1)[-1]
    run = pacer("-t1", "-c1", "-n", "1", "-b", BODY, rec.url, timeout=30)
    assert run.rc == 0, run
    with_b = rec.wait_for_requests(2)[-1]
    assert with_json.method == b"POST"
    assert with_json.header_values(b"Content-Type") == [b"application/json"]
    assert with_json.header_values(b"Accept") == [b"application/json"]
    assert with_json.body == body_file.read_bytes()
    assert with_b.method == b"POST"
    assert with_b.header_values(b"Content-Type") == [] and with_b.header_values(b"Accept") == []
    assert with_b.body == BODY.encode()


@pytest.mark.tsan
def test_json_and_dash_b_together_are_refused(server, pacer):
    run = pacer("-b", "x", "--json", BODY, server.url, timeout=30)
    assert run.rc == 2, run
    assert "--json: the body was already given by -b" in run.stderr, run
