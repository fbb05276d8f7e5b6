"""A peer that answers with keep-alive and closes anyway (issue 43, item 1).

A server (or a proxy: test_proxy.py runs tinyproxy) that sends `HTTP/1.1` without
`Connection: close` and then closes the connection makes the next request on it
meet the close. curl, Go's transport and `ab -k` open a new connection for it;
pacer re-sends, once and on a new connection, an idempotent request without a
body whose reused connection closed before any byte of its response
(engine/exchange/exchange.h: peer_closed), counts it (`counts.keepalive_closed`,
`counts.resent`) and says so in the report. A request with a body is never sent
again: it fails as `read`.

The server here answers one request per connection and closes when the next one
arrives, without answering it: every second request on a connection meets the
close, deterministically."""

from __future__ import annotations

import json
import socket
import threading

from hostile import Tally, read_request_head

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def answer_one_then_close(tally: Tally):
    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        buf = bytearray()
        if read_request_head(conn, stop, buf) is None:
            return
        conn.sendall(OK)
        tally.add("answered")
        if read_request_head(conn, stop, buf) is not None:
            tally.add("dropped")  # closed (on return) without a byte of an answer

    return behaviour


def test_requests_meeting_a_keepalive_close_are_sent_again_and_the_server_answers_each_once(
        pacer, hostile_server, tmp_path):
    tally = Tally()
    srv = hostile_server(answer_one_then_close(tally))
    out = tmp_path / "run.json"
    run = pacer("-t1", "-c4", "-n", "120", "--format", "json", "-o", str(out), srv.url)
    assert run.rc == 0, run
    doc = json.loads(out.read_text())
    counts, errors = doc["counts"], doc["errors"]
    assert counts["responses"] == 120 == tally["answered"], (counts, tally)
    assert errors["read"] == 0, errors
    # Every request the server dropped was sent again, and every close came after a kept-alive response.
    assert counts["resent"] == tally["dropped"] == counts["keepalive_closed"] > 0, (counts, tally)
    assert counts["requests_sent"] == 120, counts
    text = " ".join(run.stdout.split())
    assert (f"Keep-alive: the server closed {counts['keepalive_closed']} of {counts['connects']} connections "
            "after a response that kept them open: keep-alive is not kept; "
            f"{counts['resent']} requests that met the close were sent again on a new connection") in text, run.stdout


def test_a_request_with_a_body_is_not_sent_again(pacer, hostile_server, tmp_path):
    tally = Tally()
    srv = hostile_server(answer_one_then_close(tally))
    out = tmp_path / "run.json"
    run = pacer("-t1", "-c2", "-n", "20", "-m", "POST", "-b", "x=1", "--format", "json", "-o", str(out), srv.url)
    doc = json.loads(out.read_text())
    counts, errors = doc["counts"], doc["errors"]
    assert counts["resent"] == 0, counts
    assert counts["responses"] == tally["answered"] > 0, (counts, tally)
    assert errors["read"] == tally["dropped"] > 0, (errors, tally)
    assert counts["keepalive_closed"] == errors["read"], counts
