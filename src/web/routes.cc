// The web view's routes and access rules; see the header.
#include "web/routes.h"

#include <arpa/inet.h>

#include <charconv>
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/bearer.h"
#include "prom/exposition.h"
#include "web/assets.h"
#include "web/users_query.h"

namespace pacer::web {

namespace {

// What every reply says besides its own fields: nothing cached, no sniffing,
// nothing loaded or framed from elsewhere, no Referer carrying a token away.
constexpr std::string_view kCommonFields =
    "Cache-Control: no-store\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Referrer-Policy: no-referrer\r\n"
    "Content-Security-Policy: default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "frame-ancestors 'none'\r\n"
    "Connection: close\r\n";

std::string_view reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

Reply make_reply(int status, std::string_view content_type, std::string body, std::string_view extra = {}) {
  Reply out;
  out.status = status;
  out.head = fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}{}\r\n", status,
                         reason(status), content_type, body.size(), kCommonFields, extra);
  out.body = std::move(body);
  return out;
}

bool is_loopback_name(std::string_view name) {
  if (name == "localhost" || name == "[::1]") return true;
  in_addr v4{};
  return name.starts_with("127.") && inet_pton(AF_INET, std::string(name).c_str(), &v4) == 1;
}

// A Host field that is exactly NAME or NAME:PORT (RFC 9110 section 7.2) with a
// loopback NAME: "localhost:8080@evil" or "localhost:x" is no Host at all.
bool is_loopback_host(std::string_view host) {
  const std::size_t name_end = !host.empty() && host.front() == '[' ? host.find(']') : host.find(':');
  if (name_end == std::string_view::npos) return is_loopback_name(host);
  const std::size_t colon = host.front() == '[' ? name_end + 1 : name_end;
  const std::string_view name = host.substr(0, colon);
  if (colon == host.size()) return is_loopback_name(name);
  const std::string_view port = host.substr(colon + 1);
  const bool port_ok = host[colon] == ':' && !port.empty() && port.size() <= 5 &&
                       port.find_first_not_of("0123456789") == std::string_view::npos;
  return port_ok && is_loopback_name(name);
}

std::string_view given_token(const HttpRequest& request, const AccessRules& rules) {
  if (const auto token = bearer_token(request.authorization)) return *token;
  if (const std::string_view query = query_param(request.query, "token"); !query.empty()) return query;
  return cookie_value(request.cookie, rules.cookie_name);
}

std::uint64_t first_event_after(std::string_view last_event_id) {
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(last_event_id.data(), last_event_id.data() + last_event_id.size(), id);
  if (ec != std::errc() || end != last_event_id.data() + last_event_id.size()) return 0;
  return id + 1;
}

Reply events_reply(const HttpRequest& request) {
  Reply out;
  out.head = fmt::format("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Accel-Buffering: no\r\n{}\r\n",
                         kCommonFields);
  out.body = "retry: 1000\n\n";  // a page that loses the stream asks again after 1 s
  out.stream_events = true;
  out.first_event = first_event_after(request.last_event_id);
  return out;
}

// The run's Prometheus series (issue 29): OpenMetrics when the scraper's Accept
// asks for it, else the text format 0.0.4.
Reply metrics_reply(const HttpRequest& request, const LiveFeed& feed) {
  const auto pages = feed.metrics();
  if (!pages) return make_reply(503, "text/plain; charset=utf-8", "503: no metrics yet\n");
  if (prom::wants_openmetrics(request.accept)) {
    return make_reply(200, prom::kOpenMetricsContentType, pages->openmetrics);
  }
  return make_reply(200, prom::kTextContentType, pages->text);
}

std::string error_json(std::string_view message) {
  return nlohmann::json{{"error", message}}.dump() + "\n";
}

// A capacity search's progress (issue 41): 404 when the run is not one.
Reply search_reply(const LiveFeed& feed) {
  const auto doc = feed.search();
  if (!doc) return make_reply(404, "application/json", error_json("not a capacity search (--capacity, --sweep)"));
  return make_reply(200, "application/json", *doc,
                    feed.finished() ? "X-Pacer-Run: finished\r\n" : "X-Pacer-Run: running\r\n");
}

// A number from the query: the whole text, finite, within [0, most].
std::optional<double> number_param(std::string_view query, std::string_view name, double most) {
  const std::string_view text = query_param(query, name);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(value >= 0) || value > most) {
    return std::nullopt;
  }
  return value;
}

// The running test's load (issue 27): GET /users or /rate says what it is now,
// POST changes it; 404 when the run has nothing this route changes (a closed
// loop, or the other model's route).
Reply steering_reply(const HttpRequest& request, const LiveFeed& feed, std::string_view route,
                     const std::function<Result<std::function<Status(LoadSteering&)>>()>& parse) {
  const std::string none = route == "/users"
                               ? "no user count to change: only a running closed-model scenario (--scenario, -u) has one"
                               : "no rate to change: only a running open-model test (-R, --stages) has one";
  if (request.method != "GET" && request.method != "POST") {
    return make_reply(405, "text/plain; charset=utf-8", fmt::format("405: GET or POST {} only\n", route),
                      "Allow: GET, POST\r\n");
  }
  std::string_view kind;
  const bool lent = feed.steer([&kind](LoadSteering& s) {
    kind = s.load_kind();  // a string literal: outlives the call
    return Status(Ok{});
  }).has_value();
  if (!lent || kind != route.substr(1)) return make_reply(404, "application/json", error_json(none));
  if (request.method == "GET") return make_reply(200, "application/json", feed.steering_state().value_or("{}\n"));
  auto change = parse();
  if (!change) return make_reply(400, "application/json", error_json(change.error().message));
  const std::optional<Status> done = feed.steer(*change);
  if (!done) return make_reply(404, "application/json", error_json(none));
  if (!*done) return make_reply(409, "application/json", error_json(done->error().message));
  return make_reply(202, "application/json", feed.steering_state().value_or("{}\n"));
}

// POST /users?users=N[&spawn_rate=R]: a closed-model scenario's user count (users_query.h).
Reply users_reply(const HttpRequest& request, const LiveFeed& feed) {
  return steering_reply(request, feed, "/users", [&]() -> Result<std::function<Status(LoadSteering&)>> {
    auto mix = parse_users_query(request.query);
    if (!mix) return mix.error();
    std::optional<double> spawn_rate;
    if (!query_param(request.query, "spawn_rate").empty()) {
      spawn_rate = number_param(request.query, "spawn_rate", 1e9);
      if (!spawn_rate) return bad_argument("spawn_rate: give users per second, 0 or more");
    }
    return std::function<Status(LoadSteering&)>(
        [mix = std::move(*mix), spawn_rate](LoadSteering& s) { return s.set_users(mix, spawn_rate); });
  });
}

// POST /rate?rate=R: the open model's rate (requests, or a scenario's tasks, per second).
Reply rate_reply(const HttpRequest& request, const LiveFeed& feed) {
  return steering_reply(request, feed, "/rate", [&]() -> Result<std::function<Status(LoadSteering&)>> {
    const std::optional<double> rate = number_param(request.query, "rate", 1e12);
    if (!rate) return bad_argument("rate: give requests per second, 0 or more (POST /rate?rate=R)");
    return std::function<Status(LoadSteering&)>([r = *rate](LoadSteering& s) { return s.set_rate(r); });
  });
}

// POST /stats/reset: the statistics start again (Locust's "Reset Stats").
Reply reset_reply(const HttpRequest& request, const LiveFeed& feed) {
  if (request.method != "POST") {
    return make_reply(405, "text/plain; charset=utf-8", "405: POST /stats/reset only\n", "Allow: POST\r\n");
  }
  Result<double> at = bad_argument("no running test");
  if (!feed.steer([&at](LoadSteering& s) {
        at = s.reset_stats();
        return Status(Ok{});
      })) {
    return make_reply(404, "application/json", error_json("no running test: its statistics cannot be reset"));
  }
  if (!at) return make_reply(409, "application/json", error_json(at.error().message));
  return make_reply(202, "application/json", nlohmann::json{{"reset_at_s", *at}}.dump() + "\n");
}

}  // namespace

std::optional<Reply> refuse_access(const HttpRequest& request, const AccessRules& rules) {
  if (!rules.token.empty()) {
    if (!equal_constant_time(given_token(request, rules), rules.token)) {
      return make_reply(401, "text/plain; charset=utf-8", "401: this web view needs its token (?token=...)\n",
                        "WWW-Authenticate: Bearer realm=\"pacer\"\r\n");
    }
  } else if (!is_loopback_host(request.host)) {
    return make_reply(403, "text/plain; charset=utf-8", "403: Host must be localhost or a loopback address\n");
  }
  if (request.method == "POST" && !request.origin.empty() && request.origin != "http://" + std::string(request.host)) {
    return make_reply(403, "text/plain; charset=utf-8", "403: cross-origin POST\n");
  }
  return std::nullopt;
}

Reply route(const HttpRequest& request, const AccessRules& rules, const LiveFeed& feed) {
  if (auto refused = refuse_access(request, rules)) return std::move(*refused);
  const std::string_view path = request.path;
  if (path == "/stop") {
    if (request.method != "POST") {
      return make_reply(405, "text/plain; charset=utf-8", "405: the run stops on POST /stop only\n",
                        "Allow: POST\r\n");
    }
    Reply out = make_reply(202, "application/json", "{\"stopping\":true}\n");
    out.stop_run = true;
    return out;
  }
  if (path == "/users") return users_reply(request, feed);
  if (path == "/rate") return rate_reply(request, feed);
  if (path == "/stats/reset") return reset_reply(request, feed);
  const Asset* asset = find_asset(path);
  if (asset == nullptr && path != "/events" && path != "/report.json" && path != "/metrics" && path != "/search.json") {
    return make_reply(404, "text/plain; charset=utf-8", "404: not here\n");
  }
  if (request.method != "GET") return make_reply(405, "text/plain; charset=utf-8", "405: GET only\n", "Allow: GET\r\n");
  if (path == "/events") return events_reply(request);
  if (path == "/metrics") return metrics_reply(request, feed);
  if (path == "/search.json") return search_reply(feed);
  if (path == "/report.json") {
    const LiveFeed::ReportState state = feed.report_state();
    return make_reply(200, "application/json", *state.json,
                      state.final ? "X-Pacer-Run: finished\r\n" : "X-Pacer-Run: running\r\n");
  }
  // The page opened with ?token= hands it to its own requests (scripts, events) as
  // a cookie that no other site's page sends (SameSite=Strict) and no script reads.
  const bool set_cookie = !rules.token.empty() && path == "/" && !query_param(request.query, "token").empty();
  return make_reply(200, asset->content_type, std::string(asset->bytes),
                    set_cookie ? fmt::format("Set-Cookie: {}={}; Path=/; HttpOnly; SameSite=Strict\r\n",
                                             rules.cookie_name, rules.token)
                               : std::string());
}

Reply error_reply(int status, std::string_view why) {
  return make_reply(status, "text/plain; charset=utf-8", fmt::format("{}: {}\n", status, why));
}

std::string format_event(std::uint64_t seq, const std::string& json, std::string_view name) {
  if (!name.empty()) return fmt::format("event: {}\nid: {}\ndata: {}\n\n", name, seq, json);
  return fmt::format("id: {}\ndata: {}\n\n", seq, json);
}

std::string format_end_event(const std::string& report_json) {
  std::string out = "event: end\n";
  std::size_t pos = 0;
  while (pos <= report_json.size()) {
    const std::size_t lf = std::min(report_json.find('\n', pos), report_json.size());
    if (lf > pos || lf < report_json.size()) out += "data: " + report_json.substr(pos, lf - pos) + "\n";
    pos = lf + 1;
  }
  return out + "\n";
}

}  // namespace pacer::web
