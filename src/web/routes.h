// The web view's routes, as a pure function of one request: who may ask (the
// token, or a loopback bind's Host check), then the page and its files at `/`,
// the interval events at `/events`, the report so far at `/report.json`, the
// Prometheus metrics at `/metrics`, a capacity search's progress at
// `/search.json`, a scenario's user count at `/users` (GET, and POST to change it
// while the run goes), the open model's rate at `/rate`, `POST /stats/reset` and
// the stop action at `POST /stop`. The server (web/http_server.h) does the I/O.
// Web thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "web/http_request.h"
#include "web/live_feed.h"

namespace pacer::web {

struct AccessRules {
  std::string token;     // empty: none asked for (loopback binds only)
  bool loopback = true;  // the bind address is a loopback one
  // The cookie that carries the token for the page's own requests (set when
  // the page is opened with ?token=); named per port, as cookies ignore ports.
  std::string cookie_name = "pacer_token";
};

struct Reply {
  int status = 200;
  std::string head;                          // status line and fields, through the blank line
  std::string body;
  bool stream_events = false;                // /events: the events follow the head, until the run ends
  std::uint64_t first_event = 0;             // ...from this one (after Last-Event-ID)
  bool stop_run = false;                     // POST /stop: end the run as Ctrl-C does
};

// Who may ask: with a token, every request carries it (`?token=`,
// `Authorization: Bearer` or the cookie), else 401. Without one (loopback), Host must name a
// loopback address or localhost (else 403: a DNS-rebinding page). Either way a
// POST whose Origin is another site's is refused (403).
std::optional<Reply> refuse_access(const HttpRequest& request, const AccessRules& rules);

Reply route(const HttpRequest& request, const AccessRules& rules, const LiveFeed& feed);

// A reply with no body of interest: 400 for a bad head, 431 for a head over the
// cap, 503 when the server holds its most connections.
Reply error_reply(int status, std::string_view why);

// One interval as a Server-Sent Event: "id: N\ndata: JSON\n\n"; with a name
// (a search's progress), "event: NAME\n" first.
std::string format_event(std::uint64_t seq, const std::string& json, std::string_view name = {});
// The run's end: "event: end\ndata: ...\n\n" carrying the final report.
std::string format_end_event(const std::string& report_json);

}  // namespace pacer::web
