"""Hostile input, round four (issue 44), its remaining items, with issue 43's (truth, round
four) that share their mechanisms: --bind with an address this host lacks is refused
before the run (not called port exhaustion); --print-config is TOML that reads back to
the same run, its control characters escaped; --sni is checked as a host name and TLS
options that cannot apply are refused; an ignored HTTP_PROXY or a NO_PROXY entry that
can never match is said; a CONNECT answer too long and a proxy URL with a line break
are named for what they are; --trace says when it cut a head; bidirectional controls
from a server never reach the terminal.

Every run is bounded in wall time and sends only to 127.0.0.1."""

from __future__ import annotations

import json
import os

from hostile import Tally, answer_each_request, read_request_head

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def env_without_proxies(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and not k.startswith("PACER_")}
    env.update(extra)
    return env


# ------------------------------------------- 44 item 4: a followed redirect's Set-Cookie


def login_server(tally: Tally):
    """/login answers 302 to /home with a session cookie; /home answers 200 only with it."""

    def behaviour(conn, stop) -> None:
        buf = bytearray()
        while (head := read_request_head(conn, stop, buf)) is not None:
            if head.startswith(b"GET /login "):
                conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /home\r\nSet-Cookie: sess=abc123; Path=/\r\n"
                             b"Content-Length: 0\r\n\r\n")
            elif b"sess=abc123" in head:
                tally.add("with session")
                conn.sendall(OK)
            else:
                tally.add("without session")
                conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")

    return behaviour


LOGIN_SCENARIO = """
local user = {}
user.tasks = {
  {1, function(u)
    local r = u:get("/login", nil, "login")
    if r.status ~= 200 then u:fail("login ended with " .. r.status) end
  end, "login"},
}
return user
"""


def test_a_followed_redirects_set_cookie_is_kept_and_sent_to_its_location(hostile_server, pacer, tmp_path):
    tally = Tally()
    target = hostile_server(login_server(tally))
    scenario = tmp_path / "login.lua"
    scenario.write_text(LOGIN_SCENARIO)
    run = pacer("--format", "json", "-t1", "-u", "2", "-d", "0.3s", "--follow-redirects", "1",
                "--scenario", str(scenario), target.url, timeout=30)
    assert run.rc == 0, run
    assert tally["with session"] >= 1 and tally["without session"] == 0, tally
    tasks = {t["name"]: t for t in json.loads(run.stdout)["scenario"]["tasks"]}
    assert tasks["login"]["failures"] == 0, tasks


# ---------------------------------------- 44 item 8, 43 item 3: --bind an address not here


def test_bind_to_an_address_this_host_lacks_is_refused_before_the_run(hostile_server, pacer):
    target = hostile_server(answer_each_request(OK))
    run = pacer("-B", "10.99.99.99", "-n", "10", "-c", "1", "-t1", target.url, timeout=30)
    assert run.rc == 2, run
    assert "--bind 10.99.99.99: this host has no such address" in run.stderr, run
    assert "ip addr add 10.99.99.99/32" in run.stderr, run
    assert "no free local port" not in run.stderr and "?" not in run.stderr, run
    assert target.accepted == 0, "refused before any connection"


# ------------------------------------------- 44 item 9, 43 item 5: --print-config as TOML


def settings_of(printed: str) -> list[str]:
    """The settings without the comments that say where each came from."""
    return [line.split("  # ")[0] for line in printed.splitlines() if not line.startswith("#")]


def test_print_config_reads_back_to_the_same_settings(pacer, tmp_path):
    env = env_without_proxies()
    first = pacer("--print-config", "-H", "A: 1", "-H", "B: 2", "-c", "4", "--latency", "-d", "2s",
                  "http://127.0.0.1:9/", env=env)
    assert first.rc == 0, first
    assert 'header = ["A: 1", "B: 2"]  # command line' in first.stdout, first.stdout
    assert "connections = 4  # command line" in first.stdout and "latency = true" in first.stdout, first.stdout
    saved = tmp_path / "printed.toml"
    saved.write_text(first.stdout)
    again = pacer("--config", str(saved), "--print-config", env=env)
    assert again.rc == 0, again
    assert settings_of(again.stdout) == settings_of(first.stdout), (first.stdout, again.stdout)
    check = pacer("--config", str(saved), "--check-args", env=env)
    assert check.rc == 0, check


def test_print_config_escapes_a_files_and_a_variables_control_characters(pacer, tmp_path):
    config = tmp_path / "pacer.toml"
    config.write_text('header = ["X-A: a\\u001B]0;owned\\u0007b"]\n')
    env = env_without_proxies(PACER_DURATION="1s\x1b[2J\u202e")
    run = pacer("--config", str(config), "--print-config", "http://127.0.0.1:9/", env=env)
    assert run.rc == 0, run
    assert "\x1b" not in run.stdout and "\x07" not in run.stdout and "\u202e" not in run.stdout, repr(run.stdout)
    assert 'header = "X-A: a\\u001B]0;owned\\u0007b"' in run.stdout, run.stdout
    assert 'duration = "1s\\u001B[2J\\u202E"' in run.stdout, run.stdout


# ------------------------------------------ 44 item 12, 43 item 6: TLS options checked


def test_an_sni_that_is_no_host_name_is_refused_before_the_run(pacer):
    for sni, why in (("a" * 300, "at most 255 bytes"), ("host\x1b[2J", "byte 0x1B")):
        run = pacer("--sni", sni, "-n", "1", "-c", "1", "-t1", "https://127.0.0.1:9/")
        assert run.rc == 2, run
        assert "--sni" in run.stderr and why in run.stderr, run


def test_tls_options_that_cannot_apply_are_refused(pacer):
    cases = [
        (("--tls-min", "1.3", "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256", "https://127.0.0.1:9/"),
         "--ciphers sets TLS 1.2's cipher list, which --tls-min 1.3 never uses"),
        (("--tls-max", "1.2", "--tls13-ciphers", "TLS_AES_128_GCM_SHA256", "https://127.0.0.1:9/"),
         "--tls13-ciphers sets TLS 1.3's suites, which --tls-max 1.2 never uses"),
        (("--tls-max", "1.2", "http://127.0.0.1:9/"), "--tls-max: only with an https:// URL"),
        (("--ciphers", "ECDHE-RSA-AES128-GCM-SHA256", "http://127.0.0.1:9/"), "--ciphers: only with an https:// URL"),
        (("--sni", "a.test", "http://127.0.0.1:9/"), "--sni: only with an https:// URL"),
    ]
    for args, message in cases:
        run = pacer("--check-args", *args, env=env_without_proxies())
        assert run.rc == 2, run
        assert message in run.stderr, run


# ------------------------------------------------ 43 item 7, 44 item 14: proxy variables


def test_an_ignored_upper_case_http_proxy_is_said_once(hostile_server, pacer):
    target = hostile_server(answer_each_request(OK))
    run = pacer("-n", "5", "-c", "1", "-t1", target.url, env=env_without_proxies(HTTP_PROXY="http://127.0.0.1:9"),
                timeout=30)
    assert run.rc == 0, run
    assert run.stderr.count("HTTP_PROXY is set but not used") == 1, run
    assert "connecting directly" in run.stderr, run


def test_a_no_proxy_entry_that_can_never_match_is_said_or_refused(pacer):
    env = env_without_proxies(http_proxy="http://127.0.0.1:9", NO_PROXY="127.0.0.1:8080")
    run = pacer("--check-args", "http://127.0.0.2:1/", env=env)
    assert run.rc == 0, run
    assert "NO_PROXY: '127.0.0.1:8080' has a port" in run.stdout, run
    refused = pacer("--check-args", "-x", "http://127.0.0.1:9", "--noproxy", "10.0.0.0/33", "http://127.0.0.2:1/",
                    env=env_without_proxies())
    assert refused.rc == 2, refused
    assert "--noproxy '10.0.0.0/33': the prefix length must be 0 to 32" in refused.stderr, refused


# ------------------------------------------------------ 44 item 13: the reasons given


def test_a_connect_answer_with_a_2mb_head_is_called_too_long(hostile_server, pacer):
    proxy = hostile_server(answer_each_request(b"HTTP/1.1 200 Connection established\r\nX-Pad: " + b"a" * 2_000_000))
    run = pacer("-x", f"http://127.0.0.1:{proxy.port}", "-k", "-n", "1", "-c", "1", "-t1", "https://127.0.0.1:9/",
                env=env_without_proxies(), timeout=30)
    assert run.rc == 1, run
    assert "head longer than 8 KiB" in run.stderr, run
    assert "not an HTTP/1.x response" not in run.stderr, run


def test_a_line_break_in_a_proxy_url_is_named(pacer):
    run = pacer("-x", "http://127.0.0.1:3128\r\n", "--check-args", "http://127.0.0.1:9/", env=env_without_proxies())
    assert run.rc == 2, run
    assert "no control character or space (byte 0x0D" in run.stderr, run
    assert "brackets" not in run.stderr, run


# -------------------------------------------------- 44 items 16, 19: --trace and bidi


def test_trace_says_it_cut_a_long_head(hostile_server, pacer):
    big = b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200_000 + b"\r\nContent-Length: 2\r\n\r\nok"
    target = hostile_server(answer_each_request(big))
    run = pacer("--trace", "1", "-n", "1", "-c", "1", "-t1", target.url, timeout=30)
    assert "* (head cut by the trace: it keeps the first 64 KiB of each side)" in run.stderr, run.stderr[-600:]
    assert "the head was not complete" not in run.stderr, run.stderr[-600:]


def test_bidirectional_controls_never_reach_the_terminal(hostile_server, pacer, tmp_path):
    rtl = "a\u202eb\u2066c".encode()
    response = b"HTTP/1.1 200 OK\r\nX-Rtl: " + rtl + b"\r\nContent-Length: 2\r\n\r\nok"
    target = hostile_server(answer_each_request(response))
    targets = tmp_path / "t.jsonl"
    targets.write_text(json.dumps({"method": "GET", "url": "/", "name": "n\u202eame"}) + "\n")
    run = pacer("--trace", "1", "-n", "3", "-c", "1", "-t1", "--targets", str(targets), target.url, timeout=30)
    assert run.rc == 0, run
    for text in (run.stdout, run.stderr):
        assert "\u202e" not in text and "\u2066" not in text, repr(text[-800:])
    assert "< X-Rtl: a?b?c" in run.stderr, run.stderr
    assert "n?ame" in run.stdout, run.stdout
