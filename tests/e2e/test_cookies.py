"""Cookies (README.md, docs/scenarios.md "Cookies"): --cookie sends its pairs with every request, joined
with -H's Cookie into one header; a scenario's users keep a cookie jar each, so
a session cookie set by `pacer serve`'s /session/login is sent back to
/session/page (zero 401s, one login per user), and u.cookies reads and writes
it. Every run is bounded (-d or -n, and a subprocess timeout)."""

from __future__ import annotations

import pytest
import json
from pathlib import Path

LOGIN_THEN_BROWSE = """
local user = {}
function user.on_start(u)
  local r = u:post("/session/login", "", nil, "login")
  if r.status ~= 200 then u:fail("login " .. r.status) end
  if u.cookies.get("pacer_session") ~= "pacer-session-1" then u:fail("no session cookie in the jar") end
end
user.tasks = {
  {1, function(u)
        local r = u:get("/session/page", nil, "page")
        if r.status ~= 200 then u:fail("page " .. r.status) end
      end, "browse"},
}
return user
"""


def run_json(pacer, *args: str) -> dict:
    run = pacer("--format", "json", *args, timeout=60)
    assert run.rc == 0, run
    return json.loads(run.stdout)


@pytest.mark.tsan
def test_a_scenario_logs_in_once_per_user_and_its_jar_carries_the_session(server, pacer, tmp_path):
    script = tmp_path / "session.lua"
    script.write_text(LOGIN_THEN_BROWSE)
    report = run_json(pacer, "-t2", "-u", "6", "-d", "1s", "--scenario", str(script), server.url)
    assert "401" not in report["status_codes"], report["status_codes"]
    assert report["scenario"]["errors"]["check"] == 0 and report["scenario"]["errors"]["script"] == 0, report
    names = {n["name"]: n for n in report["scenario"]["names"]}
    assert names["login"]["requests"] == 6, "one login per user"
    assert names["page"]["requests"] > 6, names
    by_path = server.stats()["requests_by_name"]
    assert by_path.get("POST /session/login") == 6, by_path
    assert by_path.get("GET /session/page") == names["page"]["requests"], by_path


@pytest.mark.tsan
def test_without_the_login_every_page_is_a_401_so_the_jar_is_what_carries_it(server, pacer, tmp_path):
    script = tmp_path / "nologin.lua"
    script.write_text("""
local user = {}
user.tasks = {{1, function(u) u:get("/session/page", nil, "page") end, "browse"}}
return user
""")
    run = pacer("--format", "json", "-u", "2", "-n", "20", "--scenario", str(script), server.url, timeout=60)
    report = json.loads(run.stdout)
    assert report["status_codes"].get("401") == report["counts"]["responses"] == 20, report["status_codes"]


@pytest.mark.tsan
def test_u_cookies_set_delete_and_clear_change_what_is_sent(server, pacer, tmp_path):
    script = tmp_path / "api.lua"
    script.write_text("""
local user = {}
function user.on_start(u)
  assert(u.cookies.get("pacer_session") == nil, "a new user starts empty")
  assert(u.cookies:set("pacer_session", "pacer-session-1", {path = "/session"}))
  local ok = u:get("/session/page", nil, "set by code")
  u.cookies.delete("pacer_session")
  local gone = u:get("/session/page", nil, "deleted")
  u.cookies.set("pacer_session", "pacer-session-1")
  u.cookies.clear()
  local cleared = u:get("/session/page", nil, "cleared")
  if ok.status ~= 200 or gone.status ~= 401 or cleared.status ~= 401 then
    u:fail(ok.status .. " " .. gone.status .. " " .. cleared.status)
  end
  local all = u.cookies.all()
  assert(next(all) == nil)
end
user.tasks = {{1, function(u) u:sleep(10) end, "idle"}}
return user
""")
    run = pacer("--format", "json", "-u", "1", "-d", "1s", "--scenario", str(script), server.url, timeout=60)
    report = json.loads(run.stdout)
    assert report["scenario"]["errors"]["check"] == 0 and report["scenario"]["errors"]["script"] == 0, report["scenario"]
    assert report["status_codes"] == {"200": 1, "401": 2}, report["status_codes"]


def test_cookie_flag_joins_minus_h_cookie_into_one_header(recording_server, pacer, tmp_path):
    cookies_txt = tmp_path / "cookies.txt"
    cookies_txt.write_text(
        "# Netscape HTTP Cookie File\n"
        "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tfile\tf1\n"
        "127.0.0.1\tFALSE\t/elsewhere\tFALSE\t0\tother\tx\n"
        "example.com\tFALSE\t/\tFALSE\t0\tforeign\ty\n")
    run = pacer("-n", "3", "-c", "1", "-H", "Cookie: h=1", "--cookie", "a=1; b=2", "--cookie", f"@{cookies_txt}",
                recording_server.url + "/", timeout=30)
    assert run.rc == 0, run
    requests = recording_server.wait_for_requests(3)
    for r in requests:
        assert r.header_values(b"cookie") == [b"h=1; a=1; b=2; file=f1"], r


@pytest.mark.tsan
def test_bad_cookie_arguments_exit_2_naming_the_flag(pacer, tmp_path):
    run = pacer("-n", "1", "--cookie", "novalue", "http://127.0.0.1:1/", timeout=30)
    assert run.rc == 2 and "--cookie" in run.stderr, run
    run = pacer("-n", "1", "--cookie", f"@{tmp_path / 'missing.txt'}", "http://127.0.0.1:1/", timeout=30)
    assert run.rc == 2 and "missing.txt" in run.stderr, run
