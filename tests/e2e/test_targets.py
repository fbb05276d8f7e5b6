"""--targets and per-name statistics end to end: pacer's per-name counts equal what
the server counted per name (pacer serve's /stats requests_by_name, nginx's access
log for HTTP/2), for every --targets-order, closed loop and open model, HTTP/1.1,
pipelining, HTTP/2 and HTTPS; a slow endpoint shows only in its own row; pacer merge
of shards gives one process's per-name counts; bad target files exit 2 with
FILE:LINE."""

from __future__ import annotations

import http.client
import json
import shutil
import ssl
import tempfile
import time
from pathlib import Path

import pytest

from nginx_peer import NGINX, free_port, start_nginx, stop_process
from test_tls import make_cert

SETTLE_S = 5.0

FOUR_TARGETS = """# four endpoints of pacer serve
GET /

GET /bytes/100?x=1
X-Test: yes

POST /echo
Content-Type: text/plain
@body.txt

GET /status/404
"""
FOUR_NAMES = ["GET /", "GET /bytes/100", "POST /echo", "GET /status/404"]


def write_targets(tmp_path: Path, text: str, name: str = "targets.txt") -> Path:
    (tmp_path / "body.txt").write_text("hello body")
    path = tmp_path / name
    path.write_text(text)
    return path


def run_json(pacer, *args: str, timeout: float = 120):
    run = pacer("--format", "json", *args, timeout=timeout)
    assert run.rc in (0, 3), run
    return run, json.loads(run.stdout)


def endpoints(doc: dict) -> dict[str, dict]:
    return {e["name"]: e for e in doc["endpoints"]}


def sent_per_name(doc: dict) -> dict[str, int]:
    return {e["name"]: e["requests_sent"] for e in doc["endpoints"]}


def https_stats(server) -> dict:
    """/stats of a `pacer serve --tls` (PacerServer.stats speaks plain HTTP)."""
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=2,
                                       context=ssl._create_unverified_context())
    try:
        conn.request("GET", "/stats")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def server_counts(server, expected_total: int, tls: bool = False) -> dict[str, int]:
    """/stats requests_by_name once the server has received expected_total requests."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        by_name = (https_stats(server) if tls else server.stats())["requests_by_name"]
        if sum(by_name.values()) >= expected_total or time.monotonic() >= deadline:
            return by_name
        time.sleep(0.02)


def assert_counts_agree(server, doc: dict, tls: bool = False) -> dict[str, int]:
    mine = sent_per_name(doc)
    assert sum(e["errors"]["read"] + e["errors"]["write"] + e["errors"]["timeout"] for e in doc["endpoints"]) == 0
    assert sum(mine.values()) == doc["counts"]["requests_sent"]
    assert {n: e["responses"] for n, e in endpoints(doc).items()} == mine
    theirs = server_counts(server, sum(mine.values()), tls)
    assert theirs == mine
    return mine


@pytest.mark.tsan
@pytest.mark.parametrize("extra", [[], ["--pipeline", "8"]], ids=["plain", "pipelined"])
def test_round_robin_closed_loop_counts_match_the_server_per_name(server, pacer, tmp_path, extra):
    targets = write_targets(tmp_path, FOUR_TARGETS)
    _, doc = run_json(pacer, "-t2", "-c4", "-n", "4000", *extra, "--targets", str(targets), server.url)
    counts = assert_counts_agree(server, doc)
    assert sorted(counts) == sorted(FOUR_NAMES)
    # Each worker goes round the list: every target gets its quarter.
    assert counts == {name: 1000 for name in FOUR_NAMES}
    e = endpoints(doc)
    assert e["GET /status/404"]["non_2xx_3xx"] == 1000
    assert e["GET /status/404"]["errors"]["status"] == 1000
    assert e["GET /"]["non_2xx_3xx"] == 0
    assert all(x["latency"]["count"] == x["responses"] for x in doc["endpoints"])


@pytest.mark.tsan
def test_weighted_order_follows_the_weights_within_2_percent_over_100k_requests(server, pacer, tmp_path):
    targets = write_targets(tmp_path, "\n".join([
        '{"url": "/", "name": "one", "weight": 1}',
        '{"url": "/bytes/10", "name": "three", "weight": 3}',
        '{"url": "/bytes/20", "name": "six", "weight": 6}',
    ]) + "\n", "targets.jsonl")
    _, doc = run_json(pacer, "-t2", "-c8", "-n", "100000", "--targets-order", "weighted", "--targets", str(targets),
                      server.url, timeout=240)
    mine = sent_per_name(doc)
    assert sum(mine.values()) == 100000
    for name, weight in (("one", 1), ("three", 3), ("six", 6)):
        assert abs(mine[name] / 100000 - weight / 10) < 0.02, mine
    by_path = {"one": "GET /", "three": "GET /bytes/10", "six": "GET /bytes/20"}
    theirs = server_counts(server, 100000)
    assert {by_path[n]: c for n, c in mine.items()} == theirs


@pytest.mark.tsan
def test_random_order_repeats_for_one_seed_and_matches_the_server(start_server, pacer, tmp_path):
    targets = write_targets(tmp_path, FOUR_TARGETS)
    counts = []
    for seed in ("7", "7", "8"):
        server = start_server()
        _, doc = run_json(pacer, "-t2", "-c4", "-n", "8000", "--targets-order", "random", "--seed", seed,
                          "--targets", str(targets), server.url)
        counts.append(assert_counts_agree(server, doc))
    # Each worker draws its own quota's targets from its own seeded stream.
    assert counts[0] == counts[1]
    assert counts[0] != counts[2]
    for c in counts[0].values():
        assert 1600 < c < 2400, counts[0]


@pytest.mark.tsan
@pytest.mark.parametrize("order", ["round-robin", "random", "weighted"])
def test_open_model_counts_match_the_server_per_name(server, pacer, tmp_path, order):
    targets = write_targets(tmp_path, FOUR_TARGETS)
    _, doc = run_json(pacer, "-t2", "-c8", "-R", "2000", "-d", "2s", "--targets-order", order,
                      "--targets", str(targets), server.url)
    counts = assert_counts_agree(server, doc)
    assert sum(counts.values()) == doc["counts"]["scheduled"] == 4000
    assert len(counts) == 4 and min(counts.values()) > 500, counts


@pytest.mark.tsan
def test_https_targets_match_the_server(start_server, pacer, tmp_path):
    certs = make_cert(tmp_path / "certs")
    server = start_server("--tls", str(certs / "cert.pem"), str(certs / "key.pem"))
    targets = write_targets(tmp_path, FOUR_TARGETS)
    _, doc = run_json(pacer, "-k", "-t2", "-c4", "-n", "2000", "--targets", str(targets),
                      f"https://127.0.0.1:{server.port}/")
    assert assert_counts_agree(server, doc, tls=True) == {name: 500 for name in FOUR_NAMES}


@pytest.mark.tsan
def test_a_slow_endpoint_shows_only_in_its_own_row(server, pacer, tmp_path):
    targets = write_targets(tmp_path, "GET /delay/50\n\nGET /\n\nGET /bytes/1000\n")
    run, doc = run_json(pacer, "-t2", "-c6", "-d", "2s", "--targets", str(targets), server.url)
    e = endpoints(doc)
    slow = e["GET /delay/50"]["latency"]["percentiles_ns"]
    assert slow["50"] >= 50_000_000, e["GET /delay/50"]
    for fast in ("GET /", "GET /bytes/1000"):
        # Generous: a shared 2-core machine, but nowhere near the 50 ms.
        assert e[fast]["latency"]["percentiles_ns"]["90"] < 25_000_000, e[fast]
    assert_counts_agree(server, doc)


def test_text_report_has_an_endpoints_table_within_80_columns(server, pacer, tmp_path):
    long_name = "a very long endpoint name " * 5
    targets = write_targets(tmp_path, "\n".join([
        '{"url": "/", "name": "%s"}' % long_name.strip(),
        '{"url": "/status/503"}',
    ]) + "\n", "t.jsonl")
    run = pacer("--latency", "-t1", "-c2", "-n", "200", "--targets", str(targets), server.url, timeout=60)
    assert run.rc == 0, run
    assert "Endpoints: 2 names, most requests first" in run.stdout, run
    assert "GET /status/503" in run.stdout
    assert "errors: status 100" in run.stdout, run
    assert all(len(line) <= 80 for line in run.stdout.splitlines()), run.stdout


def test_past_max_names_requests_count_under_other(server, pacer, tmp_path):
    targets = write_targets(tmp_path, FOUR_TARGETS)
    run = pacer("-t1", "-c2", "-n", "400", "--max-names", "2", "--targets", str(targets), server.url, timeout=60)
    assert run.rc == 0, run
    assert '--max-names 2 further names were counted under "(other)"' in run.stdout, run
    _, doc = run_json(pacer, "-t1", "-c2", "-n", "400", "--max-names", "2", "--targets", str(targets), server.url)
    assert sent_per_name(doc) == {"GET /": 100, "GET /bytes/100": 100, "(other)": 200}
    assert doc["endpoint_names"] == {"max_names": 2, "capped": True, "targets_file": True}


@pytest.mark.tsan
def test_timeseries_rows_carry_per_name_counts_that_add_up(server, pacer, tmp_path):
    targets = write_targets(tmp_path, FOUR_TARGETS)
    series = tmp_path / "series.ndjson"
    _, doc = run_json(pacer, "-t2", "-c4", "-d", "2s", "--interval", "500ms", "--timeseries", str(series),
                      "--targets", str(targets), server.url)
    rows = [json.loads(line) for line in series.read_text().splitlines()]
    summed: dict[str, int] = {}
    for r in rows:
        assert sum(v["completed"] for v in r["endpoints"].values()) == r["completed"], r
        for name, v in r["endpoints"].items():
            summed[name] = summed.get(name, 0) + v["completed"]
    assert summed == {n: e["responses"] for n, e in endpoints(doc).items()}


@pytest.mark.tsan
def test_merged_shards_have_one_processs_per_name_counts(server, pacer, tmp_path):
    targets = write_targets(tmp_path, FOUR_TARGETS)
    _, whole = run_json(pacer, "-t2", "-c4", "-n", "4000", "--targets", str(targets), server.url)
    files = []
    for i in range(2):
        path = tmp_path / f"shard{i}.json"
        run = pacer("-t2", "-c4", "-n", "4000", "--shard", f"{i}/2", "--targets", str(targets), "--format", "json",
                    "-o", str(path), server.url, timeout=60)
        assert run.rc == 0, run
        files.append(str(path))
    run = pacer("merge", "--format", "json", *files)
    assert run.rc == 0, run
    merged = json.loads(run.stdout)
    assert sent_per_name(merged) == sent_per_name(whole) == {name: 1000 for name in FOUR_NAMES}
    shards = [json.loads(Path(f).read_text()) for f in files]
    for name, e in endpoints(merged).items():
        assert e["latency"]["count"] == sum(endpoints(s)[name]["latency"]["count"] for s in shards)
        # The V2 histograms keep maxima to 3 significant digits.
        assert e["latency"]["max_ns"] == pytest.approx(max(endpoints(s)[name]["latency"]["max_ns"] for s in shards),
                                                       rel=1e-3)
    # The text of the merge shows the table too.
    text = pacer("merge", *files)
    assert "Endpoints: 4 names" in text.stdout, text


def test_targets_from_stdin_without_a_url_take_the_files_origin(server, pacer):
    text = f"GET {server.url}bytes/5\n\nGET /\n".encode()
    run = pacer("--format", "json", "-t1", "-c1", "-n", "10", "--targets", "-", input=text, timeout=60)
    assert run.rc == 0, run
    doc = json.loads(run.stdout)
    assert sent_per_name(doc) == {"GET /bytes/5": 5, "GET /": 5}


def test_a_script_names_its_requests_with_request_s_second_value(server, pacer, tmp_path):
    script = tmp_path / "named.lua"
    script.write_text(
        "local reqs = {wrk.format(nil, '/bytes/1'), wrk.format(nil, '/bytes/2?id=9')}\n"
        "local i = 0\n"
        "function request()\n"
        "  i = i + 1\n"
        "  if i % 2 == 0 then return reqs[1], 'first' end\n"
        "  return reqs[2]\n"
        "end\n")
    _, doc = run_json(pacer, "-t1", "-c1", "-n", "100", "-s", str(script), server.url)
    assert sent_per_name(doc) == {"first": 50, "GET /bytes/2": 50}
    assert server_counts(server, 100) == {"GET /bytes/1": 50, "GET /bytes/2": 50}


@pytest.mark.tsan
@pytest.mark.parametrize("text, where, reason", [
    ("GET /a\n\nFETCH /b\n", ":3:", "unknown method 'FETCH'"),
    ("GET /a\nX-Broken header\n", ":2:", "header line without a colon"),
    ("POST /a\n@missing.json\n", ":2:", "cannot read the body file"),
    ('{"url": "/a", "body": "%%%"}\n', ":1:", "not valid base64"),
    ('{"url": "/a"}\n{"url": \n', ":2:", "not valid JSON"),
    ("GET /a\n\nGET http://127.0.0.1:1/b\n", ":3:", "a second origin"),
])
def test_malformed_targets_files_exit_2_with_file_line_and_reason(server, pacer, tmp_path, text, where, reason):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    run = pacer("-n", "10", "--targets", str(path), server.url)
    assert run.rc == 2, run
    assert f"{path}{where}" in run.stderr and reason in run.stderr, run
    assert server.stats()["requests_answered"] == 0


@pytest.mark.tsan
def test_conflicting_targets_options_exit_2(server, pacer, tmp_path):
    path = write_targets(tmp_path, "GET /\n")
    script = tmp_path / "s.lua"
    script.write_text("")
    for args, reason in (
        (["--targets-order", "weighted"], "--targets-order needs --targets"),
        (["--targets", str(path), "--targets-order", "fair"], "expected round-robin, random or weighted"),
        (["--targets", str(path), "-s", str(script)], "--targets and --script"),
        (["--targets", str(tmp_path / "none.txt")], "cannot read"),
        (["--max-names", "0"], "--max-names"),
    ):
        run = pacer("-n", "1", *args, server.url)
        assert run.rc == 2 and reason in run.stderr, run


# ---------------------------------------------------------------- HTTP/2 (nginx h2c)


@pytest.fixture
def nginx_h2c():
    """nginx speaking h2c, logging "METHOD uri" per request."""
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed")
    d = Path(tempfile.mkdtemp(prefix="pacer_nginx_targets_"))
    port = free_port()
    try:
        proc = start_nginx(d, port, "$request_method $uri", f"""server {{
    listen 127.0.0.1:{port} http2;
    location / {{ return 200 "hello\\n"; }}
  }}""")
        try:
            yield f"http://127.0.0.1:{port}/", d / "access.log"
        finally:
            stop_process(proc)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def nginx_counts(log: Path, expected_total: int) -> dict[str, int]:
    deadline = time.monotonic() + SETTLE_S
    while True:
        lines = log.read_text().splitlines() if log.exists() else []
        if len(lines) >= expected_total or time.monotonic() >= deadline:
            out: dict[str, int] = {}
            for line in lines:
                out[line] = out.get(line, 0) + 1
            return out
        time.sleep(0.02)


@pytest.mark.tsan
@pytest.mark.parametrize("model", [["-n", "3000"], ["-R", "1500", "-d", "2s"]], ids=["closed", "open"])
def test_http2_targets_match_nginx_per_name(nginx_h2c, pacer, tmp_path, model):
    url, log = nginx_h2c
    targets = write_targets(tmp_path, "GET /a?q=1\n\nGET /b\n\nPOST /c\n@body.txt\n")
    _, doc = run_json(pacer, "--http2", "--streams", "8", "-t2", "-c4", *model, "--targets", str(targets), url)
    mine = sent_per_name(doc)
    assert sum(mine.values()) == 3000
    assert {n: e["responses"] for n, e in endpoints(doc).items()} == mine
    assert nginx_counts(log, 3000) == mine


def test_check_args_reads_the_targets_file_and_says_what_would_run(pacer, tmp_path):
    targets = write_targets(tmp_path, FOUR_TARGETS)
    run = pacer("--check-args", "--targets", str(targets), "--targets-order", "weighted", "http://127.0.0.1:1/")
    assert run.rc == 0, run
    assert f"Targets: 4 from {targets}, weighted" in run.stdout, run
    (tmp_path / "bad.txt").write_text("GET /\nno colon\n")
    run = pacer("--check-args", "--targets", str(tmp_path / "bad.txt"), "http://127.0.0.1:1/")
    assert run.rc == 2 and f"{tmp_path / 'bad.txt'}:2: header line without a colon" in run.stderr, run


def test_script_names_past_max_names_count_under_other(server, pacer, tmp_path):
    script = tmp_path / "ids.lua"
    script.write_text(
        "local i = 0\n"
        "function request()\n"
        "  i = i + 1\n"
        "  return wrk.format(nil, '/'), 'user ' .. (i % 5)\n"
        "end\n")
    _, doc = run_json(pacer, "-t1", "-c1", "-n", "100", "--max-names", "3", "-s", str(script), server.url)
    assert sent_per_name(doc) == {"user 1": 20, "user 2": 20, "user 3": 20, "(other)": 40}
    assert doc["endpoint_names"]["capped"] is True
