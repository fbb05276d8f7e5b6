"""`pacer serve`'s /pool/W/MS, the target of known capacity, as a user calibrates with it.

/pool/4/10 is 4 workers of 10 ms, shared by the server's two threads: at most
4 x 1000 / 10 = 400 requests per second. Below that, uniform arrivals never queue
(a D/D/4 queue): every request takes the service time, and pacer gets the rate it
asks for. Above it, pacer gets the capacity, its connections all wait in the pool's
queue, and each waits c x MS / W (Little's law: 50 connections at 400/s, 125 ms);
latency, measured from when each request was due, grows far past the service time.

Below the capacity /delay/10 runs beside the pool in the same run, the two routes'
requests taking turns, to tell the machine's noise from the pool's: on a machine so
busy that even the plain timer's tail is late, the bounds follow it. (A server
stalled for a while then reads the arrivals of the stall at once, and the pool
rightly queues that burst: its tail then grows somewhat more than /delay's.)
Timing-sensitive: seen to fail beside other load on a two-core machine.
"""

import json

import pytest

from conftest import PacerServer

pytestmark = pytest.mark.alone

POOL = "/pool/4/10"
SERVICE_MS = 10.0
CAPACITY_PER_S = 400.0
DURATION = "1500ms"
DURATION_S = 1.5


@pytest.fixture
def pool_server(pacer_bin):
    server = PacerServer(threads=2)
    yield server
    server.stop()


def ms(ns: int) -> float:
    return ns / 1e6


@pytest.mark.tsan
def test_below_its_capacity_the_pool_answers_every_request_in_its_service_time(pool_server, pacer, tmp_path):
    targets = tmp_path / "targets.txt"
    targets.write_text(f"GET {POOL}\n\nGET /delay/10\n")  # round-robin: 300/s each
    run = pacer("-t2", "-c40", "-R", "600", "-d", DURATION, "--targets", str(targets), "--format", "json",
                pool_server.url, timeout=30)
    assert run.rc == 0, run
    doc = json.loads(run.stdout)
    by_name = {e["name"]: e for e in doc["endpoints"]}
    pool, delay = by_name[f"GET {POOL}"], by_name["GET /delay/10"]
    expected = int(300 * DURATION_S)
    assert pool["responses"] == expected and pool["failed"] == 0, pool
    assert doc["rates"]["sent_per_s"] == pytest.approx(600, rel=0.01), doc["rates"]
    assert pool["completed_per_s"] == pytest.approx(300, rel=0.05), pool
    # No request is served faster than its worker can, nor queued behind another: from
    # its send (TTFB: pacer's own lateness in sending is the machine's, not the pool's)
    # each takes the 10 ms, as /delay/10's requests do, and no more.
    ttfb, reference = pool["ttfb"], delay["ttfb"]["percentiles_ns"]
    assert ms(ttfb["min_ns"]) >= SERVICE_MS, ttfb
    assert ms(ttfb["percentiles_ns"]["50"]) <= max(11.0, ms(reference["50"]) + 0.5), (ttfb, reference)
    assert ms(ttfb["percentiles_ns"]["99"]) <= max(14.0, 1.5 * ms(reference["99"])), (ttfb, reference)
    assert pool_server.wait_for("requests_answered", 2 * expected) == 2 * expected


@pytest.mark.tsan
def test_above_its_capacity_the_pool_answers_at_its_capacity_and_latency_grows(pool_server, pacer):
    connections = 50
    run = pacer("-t2", f"-c{connections}", "-R", "800", "-d", DURATION, "--format", "json",
                pool_server.url + POOL[1:], timeout=30)
    assert run.rc == 0, run
    doc = json.loads(run.stdout)
    counts, rates = doc["counts"], doc["rates"]
    assert counts["failed"] == 0, doc["errors"]
    assert rates["completed_per_s"] == pytest.approx(CAPACITY_PER_S, rel=0.10), rates
    # Every connection waits its turn in the pool: c x MS / W per request, once full.
    queued_ms = connections * SERVICE_MS / 4
    assert ms(doc["service_time"]["percentiles_ns"]["50"]) == pytest.approx(queued_ms, rel=0.25), doc["service_time"]
    # The arrivals the connections could not carry waited in pacer's backlog too.
    assert ms(doc["latency"]["percentiles_ns"]["50"]) > 10 * SERVICE_MS, doc["latency"]
    assert pool_server.wait_for("requests_answered", counts["responses"]) == counts["responses"]
