// Routing and reply planning for `pacer serve`: request target -> Route -> Reply
// (status, body source, action), and the status line + headers for a Reply. Pure
// functions except plan_reply's use of the server-wide /fail counter. Called on the
// hot path by every worker thread: nothing here allocates.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "core/clock.h"

namespace pacer::server {

constexpr std::uint64_t kMaxBodyBytes = std::uint64_t{1} << 30;  // /bytes/N and /chunked/N: 1 GiB
constexpr std::uint64_t kMaxDelayMs = 3'600'000;                 // /delay/MS: one hour
constexpr std::uint64_t kTruncatedContentLength = 100;           // /close announces, never sends
constexpr std::uint64_t kMaxPoolWorkers = 1024;                  // /pool/W/MS: W in 1..1024
constexpr std::uint64_t kMaxPoolServiceMs = 60'000;              // /pool/W/MS: MS in 1..60000 (one minute)

enum class RouteKind : std::uint8_t {
  kRoot, kBytes, kDelay, kStatus, kFail, kNever, kClose, kChunked, kRedirect, kEcho, kStats,
  kHangUp,        // /hangup: a keep-alive 200, then the connection closes without saying so (issue 43)
  kLogin,         // /login: a fixed token, as JSON (for scripts' login examples)
  kAuth,          // /auth: 200 with "Authorization: Bearer <the /login token>", else 401
  kJson,          // /json: 200 with a JSON Content-Type, else 415 (as JSON APIs answer)
  // The shop the scenario examples and tests drive (docs/scenarios.md):
  // /api/login is /login's token; /api/products a JSON list;
  kShopProducts,
  kShopOrder,     // /api/orders: 201 with "Authorization: Bearer <the /login token>", else 401
  // Session cookies (the scenario cookie jar's tests, README.md, docs/scenarios.md "Cookies"):
  kSessionLogin,  // /session/login: 200 setting the session cookie (kSessionCookie)
  kSessionPage,   // /session/page: 200 with "Cookie: ...<kSessionCookie>...", else 401
  kPool,          // /pool/W/MS: served by a pool of W workers of MS each (calibration_pools.h)
  kNotFound,      // no such path (also /bytes/abc: a parameter that is not a number)
  kBadParameter,  // a numeric parameter too large to parse
};

struct Route {
  RouteKind kind = RouteKind::kNotFound;
  std::uint64_t value = 0;  // N, MS or CODE for the routes that take one; kAuth, kSessionPage: 1 if authorized;
                            // kJson: 1 if the Content-Type is JSON; kPool: W, the workers
  std::uint64_t service_ms = 0;  // kPool: MS, each request's service time
};

// The token /login hands out and /auth expects.
constexpr std::string_view kLoginToken = "pacer-token-1";

// Whether the request head (request line and headers, as received) carries
// "Authorization: Bearer <kLoginToken>" (header name in any case).
bool has_login_token(std::string_view head);

// The session cookie /session/login sets and /session/page expects.
constexpr std::string_view kSessionCookie = "pacer_session=pacer-session-1";

// Whether the request head carries a Cookie header with the pair kSessionCookie.
bool has_session_cookie(std::string_view head);

// Whether the request head carries a Content-Type whose media type is
// application/json or ends in +json (parameters ignored, any case).
bool has_json_content_type(std::string_view head);

// target: the request-target as received (origin-form, or absolute-form whose
// scheme and authority are skipped). The query string and fragment are ignored.
Route match_route(std::string_view target);

enum class ReplyAction : std::uint8_t {
  kAnswer,    // send now
  kDelay,     // send after delay_ns
  kNever,     // never send; discard further input until the peer closes
  kTruncate,  // send the head (Content-Length: 100) without the body, then close
  kQueue,     // send when the route's pool (SharedState::pools) finishes it; delay_ns is its service time
};

enum class BodyKind : std::uint8_t {
  kNone,     // 204, 304: no body and no Content-Length
  kText,     // text (static, or the caller's scratch)
  kPattern,  // body_bytes of body_pattern()
  kChunked,  // body_bytes of body_pattern(), Transfer-Encoding: chunked
  kEcho,     // the request's raw bytes; body_bytes is filled in by the connection
};

struct Reply {
  ReplyAction action = ReplyAction::kAnswer;
  int status = 200;
  BodyKind body = BodyKind::kText;
  std::uint64_t body_bytes = 0;  // body length for every kind but kNone
  std::string_view text;          // kText
  std::string_view content_type = "text/plain";
  std::string_view location;      // non-empty: sent as a Location header
  std::string_view set_cookie;    // non-empty: sent as a Set-Cookie header
  TimeNs delay_ns = 0;            // kDelay
  bool counted = true;            // counts toward requests_answered once fully written
  bool hang_up = false;           // close once written, without `Connection: close` (/hangup)
};

struct StatsSnapshot {
  std::uint64_t requests_answered = 0;
  std::uint64_t connections_accepted = 0;
};

// The reply for route. fail_requests is the server-wide count of /fail/N requests.
// stats is read only for /stats, whose JSON body is written to scratch (>= 128
// bytes; the reply's text points into it).
Reply plan_reply(Route route, std::atomic<std::uint64_t>& fail_requests, const StatsSnapshot& stats,
                 std::span<char> scratch);

// A reply with a small text body for status (400, 414, 431, ...).
Reply status_reply(int status);

// The 503 for a /pool/W/MS request past the server's kMaxCalibrationPools distinct
// pools, its text body saying so.
Reply too_many_pools_reply();

enum class ConnectionHeader : std::uint8_t { kNone, kKeepAlive, kClose };

// Writes the status line and headers of reply (ending with the blank line) to dst.
// Returns the bytes written, or 0 when dst is too small (kMaxHeadBytes is enough).
constexpr std::size_t kMaxHeadBytes = 512;
std::size_t write_head(std::span<char> dst, const Reply& reply, ConnectionHeader connection);

// "OK", "Not Found", ...; a class name ("Server Error") for codes without one.
std::string_view reason_phrase(int status);

}  // namespace pacer::server
