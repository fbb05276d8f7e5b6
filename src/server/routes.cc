// Routing, reply planning and head formatting. See routes.h.
#include "server/routes.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>

#include "core/bearer.h"
#include "server/calibration_pools.h"

namespace pacer::server {
namespace {

constexpr std::string_view kRootBody = "hello, pacer\n";
constexpr std::string_view kDelayBody = "ok\n";
constexpr std::string_view kPoolBody = "pool\n";
constexpr std::string_view kTooManyPoolsBody =
    "too many pools: pacer serve keeps at most 64 distinct /pool/W/MS pairs\n";
static_assert(kMaxCalibrationPools == 64, "kTooManyPoolsBody names the limit");
constexpr std::string_view kOctetStream = "application/octet-stream";
constexpr std::string_view kLoginBody = R"({"token":"pacer-token-1"})";
static_assert(kLoginBody.find(kLoginToken) != std::string_view::npos);
constexpr std::string_view kJsonOkBody = R"({"ok":true})";
constexpr std::string_view kSessionSetCookie = "pacer_session=pacer-session-1; Path=/; HttpOnly";
static_assert(kSessionSetCookie.starts_with(kSessionCookie));
// The shop (scenarios): a small product list and an order's receipt.
constexpr std::string_view kProductsBody =
    R"([{"sku":"A-100","name":"kettle","price":25},{"sku":"B-200","name":"teapot","price":18}])";
constexpr std::string_view kOrderBody = R"({"order":"created","sku":"A-100"})";

struct StatusText {
  int status;
  std::string_view text;  // reason phrase + '\n': the body of a plain status reply
};

constexpr StatusText kStatusTexts[] = {
    {200, "OK\n"}, {201, "Created\n"}, {202, "Accepted\n"}, {203, "Non-Authoritative Information\n"},
    {204, "No Content\n"}, {205, "Reset Content\n"}, {206, "Partial Content\n"},
    {300, "Multiple Choices\n"}, {301, "Moved Permanently\n"}, {302, "Found\n"}, {303, "See Other\n"},
    {304, "Not Modified\n"}, {307, "Temporary Redirect\n"}, {308, "Permanent Redirect\n"},
    {400, "Bad Request\n"}, {401, "Unauthorized\n"}, {402, "Payment Required\n"}, {403, "Forbidden\n"},
    {404, "Not Found\n"}, {405, "Method Not Allowed\n"}, {406, "Not Acceptable\n"},
    {408, "Request Timeout\n"}, {409, "Conflict\n"}, {410, "Gone\n"}, {411, "Length Required\n"},
    {412, "Precondition Failed\n"}, {413, "Content Too Large\n"}, {414, "URI Too Long\n"},
    {415, "Unsupported Media Type\n"}, {416, "Range Not Satisfiable\n"}, {417, "Expectation Failed\n"},
    {418, "I'm a teapot\n"}, {421, "Misdirected Request\n"}, {422, "Unprocessable Content\n"},
    {425, "Too Early\n"}, {426, "Upgrade Required\n"}, {428, "Precondition Required\n"},
    {429, "Too Many Requests\n"}, {431, "Request Header Fields Too Large\n"},
    {451, "Unavailable For Legal Reasons\n"}, {500, "Internal Server Error\n"}, {501, "Not Implemented\n"},
    {502, "Bad Gateway\n"}, {503, "Service Unavailable\n"}, {504, "Gateway Timeout\n"},
    {505, "HTTP Version Not Supported\n"}, {507, "Insufficient Storage\n"}, {511, "Network Authentication Required\n"},
};

std::string_view status_text(int status) {
  for (const StatusText& s : kStatusTexts) {
    if (s.status == status) return s.text;
  }
  if (status < 300) return "Success\n";
  if (status < 400) return "Redirection\n";
  if (status < 500) return "Client Error\n";
  return "Server Error\n";
}

// Parses the decimal parameter after a route prefix.
Route numeric_route(RouteKind kind, std::string_view digits) {
  if (digits.empty()) return Route{RouteKind::kNotFound, 0};
  for (char c : digits) {
    if (c < '0' || c > '9') return Route{RouteKind::kNotFound, 0};
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || end != digits.data() + digits.size()) return Route{RouteKind::kBadParameter, 0};
  return Route{kind, value};
}

// /pool/W/MS after "/pool/": two decimal parameters. A part that is not a number
// (or a missing or extra part) is not found; a number too large to parse is a bad
// parameter. The ranges are plan_reply's to check.
Route pool_route(std::string_view parameters) {
  const std::size_t slash = parameters.find('/');
  if (slash == std::string_view::npos) return Route{RouteKind::kNotFound, 0};
  const Route workers = numeric_route(RouteKind::kPool, parameters.substr(0, slash));
  const Route service = numeric_route(RouteKind::kPool, parameters.substr(slash + 1));
  if (workers.kind == RouteKind::kNotFound || service.kind == RouteKind::kNotFound) return Route{RouteKind::kNotFound, 0};
  if (workers.kind == RouteKind::kBadParameter || service.kind == RouteKind::kBadParameter) {
    return Route{RouteKind::kBadParameter, 0};
  }
  return Route{RouteKind::kPool, workers.value, service.value};
}

// Appends to a fixed buffer; remembers overflow instead of writing past the end.
class HeadWriter {
 public:
  explicit HeadWriter(std::span<char> dst) : dst_(dst) {}
  HeadWriter& add(std::string_view text) {
    if (text.size() > dst_.size() - size_) {
      overflowed_ = true;
      return *this;
    }
    std::memcpy(dst_.data() + size_, text.data(), text.size());
    size_ += text.size();
    return *this;
  }
  HeadWriter& add(std::uint64_t value) {
    char digits[20];
    const char* end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    return add(std::string_view(digits, static_cast<std::size_t>(end - digits)));
  }
  std::size_t size() const { return size_; }
  bool overflowed() const { return overflowed_; }

 private:
  std::span<char> dst_;
  std::size_t size_ = 0;
  bool overflowed_ = false;
};

bool has_body(int status) { return status != 204 && status != 304 && status >= 200; }

}  // namespace

Route match_route(std::string_view target) {
  for (std::string_view scheme : {std::string_view{"http://"}, std::string_view{"https://"}}) {
    if (target.starts_with(scheme)) {
      const std::size_t slash = target.find('/', scheme.size());
      target = slash == std::string_view::npos ? std::string_view{"/"} : target.substr(slash);
      break;
    }
  }
  target = target.substr(0, target.find_first_of("?#"));

  struct Prefix {
    std::string_view text;
    RouteKind kind;
  };
  static constexpr Prefix kNumeric[] = {
      {"/bytes/", RouteKind::kBytes}, {"/delay/", RouteKind::kDelay},     {"/status/", RouteKind::kStatus},
      {"/fail/", RouteKind::kFail},   {"/chunked/", RouteKind::kChunked},
  };
  for (const Prefix& p : kNumeric) {
    if (target.starts_with(p.text)) return numeric_route(p.kind, target.substr(p.text.size()));
  }
  constexpr std::string_view kPoolPrefix = "/pool/";
  if (target.starts_with(kPoolPrefix)) return pool_route(target.substr(kPoolPrefix.size()));
  static constexpr Prefix kExact[] = {
      {"/", RouteKind::kRoot},         {"/never", RouteKind::kNever}, {"/close", RouteKind::kClose}, {"/hangup", RouteKind::kHangUp},
      {"/redirect", RouteKind::kRedirect}, {"/echo", RouteKind::kEcho},   {"/stats", RouteKind::kStats},
      {"/login", RouteKind::kLogin},   {"/auth", RouteKind::kAuth},   {"/json", RouteKind::kJson},
      {"/api/login", RouteKind::kLogin}, {"/api/products", RouteKind::kShopProducts},
      {"/api/orders", RouteKind::kShopOrder}, {"/session/login", RouteKind::kSessionLogin},
      {"/session/page", RouteKind::kSessionPage},
  };
  for (const Prefix& p : kExact) {
    if (target == p.text) return Route{p.kind, 0};
  }
  return Route{RouteKind::kNotFound, 0};
}

namespace {

bool equal_ignoring_case(std::string_view lower, std::string_view text) {
  return lower.size() == text.size() && std::equal(lower.begin(), lower.end(), text.begin(), [](char a, char b) {
           return a == (b >= 'A' && b <= 'Z' ? b + 32 : b);
         });
}

// The value (without surrounding blanks) of the first header named `name_colon`
// ("\r\nname:", lower case) in the head; nullopt when there is none.
std::optional<std::string_view> header_value(std::string_view head, std::string_view name_colon) {
  head = head.substr(0, head.find("\r\n\r\n"));
  for (std::size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
    if (head.size() - at < name_colon.size()) return std::nullopt;
    if (!equal_ignoring_case(name_colon, head.substr(at, name_colon.size()))) continue;
    std::string_view value = head.substr(at + name_colon.size());
    value = value.substr(0, value.find("\r\n"));
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    return value;
  }
  return std::nullopt;
}

}  // namespace

bool has_login_token(std::string_view head) {
  const std::optional<std::string_view> value = header_value(head, "\r\nauthorization:");
  const std::optional<std::string_view> token = value ? bearer_token(*value) : std::nullopt;
  return token && *token == kLoginToken;
}

bool has_session_cookie(std::string_view head) {
  const std::optional<std::string_view> value = header_value(head, "\r\ncookie:");
  if (!value) return false;
  std::string_view pairs = *value;
  while (!pairs.empty()) {
    const std::size_t end = pairs.find(';');
    std::string_view pair = pairs.substr(0, end);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    if (pair == kSessionCookie) return true;
    pairs = end == std::string_view::npos ? std::string_view{} : pairs.substr(end + 1);
  }
  return false;
}

bool has_json_content_type(std::string_view head) {
  const std::optional<std::string_view> value = header_value(head, "\r\ncontent-type:");
  if (!value) return false;
  std::string_view type = value->substr(0, value->find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  constexpr std::string_view kJsonType = "application/json";
  constexpr std::string_view kJsonSuffix = "+json";
  return equal_ignoring_case(kJsonType, type) ||
         (type.size() > kJsonSuffix.size() && equal_ignoring_case(kJsonSuffix, type.substr(type.size() - kJsonSuffix.size())));
}

Reply status_reply(int status) {
  Reply reply;
  reply.status = status;
  if (has_body(status)) {
    reply.text = status_text(status);
    reply.body_bytes = reply.text.size();
  } else {
    reply.body = BodyKind::kNone;
  }
  return reply;
}

Reply too_many_pools_reply() {
  Reply reply;
  reply.status = 503;
  reply.text = kTooManyPoolsBody;
  reply.body_bytes = kTooManyPoolsBody.size();
  return reply;
}

namespace {

// A JSON body held by the program (status 200 unless given).
Reply json_reply(std::string_view body, int status = 200) {
  Reply reply;
  reply.status = status;
  reply.text = body;
  reply.body_bytes = body.size();
  reply.content_type = "application/json";
  return reply;
}

// The routes that say what to send: a fixed text, N bytes (whole or chunked),
// a text after a delay, or one served by a pool of workers.
Reply payload_reply(Route route) {
  Reply reply;
  switch (route.kind) {
    case RouteKind::kRoot:
      reply.text = kRootBody;
      reply.body_bytes = kRootBody.size();
      return reply;
    case RouteKind::kBytes:
    case RouteKind::kChunked:
      if (route.value > kMaxBodyBytes) return status_reply(400);
      reply.body = route.kind == RouteKind::kBytes ? BodyKind::kPattern : BodyKind::kChunked;
      reply.body_bytes = route.value;
      reply.content_type = kOctetStream;
      return reply;
    case RouteKind::kDelay:
      if (route.value > kMaxDelayMs) return status_reply(400);
      reply.action = ReplyAction::kDelay;
      reply.delay_ns = static_cast<TimeNs>(route.value) * kNsPerMs;
      reply.text = kDelayBody;
      reply.body_bytes = kDelayBody.size();
      return reply;
    case RouteKind::kPool:
      if (route.value == 0 || route.value > kMaxPoolWorkers || route.service_ms == 0 ||
          route.service_ms > kMaxPoolServiceMs) {
        return status_reply(400);
      }
      reply.action = ReplyAction::kQueue;
      reply.delay_ns = static_cast<TimeNs>(route.service_ms) * kNsPerMs;
      reply.text = kPoolBody;
      reply.body_bytes = kPoolBody.size();
      return reply;
    default: break;
  }
  return status_reply(404);
}

// The routes that misbehave on purpose, or echo: no reply, a hang-up, a
// truncated body, a redirect, the request's own body.
Reply connection_reply(Route route) {
  Reply reply;
  switch (route.kind) {
    case RouteKind::kNever:
      reply.action = ReplyAction::kNever;
      reply.counted = false;
      return reply;
    case RouteKind::kHangUp:
      reply.text = "ok";
      reply.body_bytes = 2;
      reply.hang_up = true;
      return reply;
    case RouteKind::kClose:
      reply.action = ReplyAction::kTruncate;
      reply.body = BodyKind::kPattern;
      reply.body_bytes = kTruncatedContentLength;
      reply.counted = false;
      return reply;
    case RouteKind::kRedirect:
      reply = status_reply(302);
      reply.location = "/";
      return reply;
    case RouteKind::kEcho:
      reply.body = BodyKind::kEcho;
      reply.content_type = kOctetStream;
      return reply;
    default: break;
  }
  return status_reply(404);
}

// /stats: the server's counts as JSON, written to scratch.
Reply stats_reply(const StatsSnapshot& stats, std::span<char> scratch) {
  Reply reply;
  const auto json = fmt::format_to_n(scratch.data(), scratch.size(),
                                     R"({{"requests_answered":{},"connections_accepted":{}}})",
                                     stats.requests_answered, stats.connections_accepted);
  reply.text = std::string_view(scratch.data(), std::min(json.size, scratch.size()));
  reply.body_bytes = reply.text.size();
  reply.content_type = "application/json";
  reply.counted = false;
  return reply;
}

// The little application scripts and scenarios drive: a login, a bearer token,
// JSON, the shop, a session cookie.
Reply app_reply(Route route) {
  switch (route.kind) {
    case RouteKind::kLogin: return json_reply(kLoginBody);
    case RouteKind::kAuth: return status_reply(route.value != 0 ? 200 : 401);
    case RouteKind::kJson: return route.value != 0 ? json_reply(kJsonOkBody) : status_reply(415);
    case RouteKind::kShopProducts: return json_reply(kProductsBody);
    case RouteKind::kShopOrder: return route.value != 0 ? json_reply(kOrderBody, 201) : status_reply(401);
    case RouteKind::kSessionLogin: {
      Reply reply = json_reply(kJsonOkBody);
      reply.set_cookie = kSessionSetCookie;
      return reply;
    }
    case RouteKind::kSessionPage: return route.value != 0 ? json_reply(kJsonOkBody) : status_reply(401);
    default: break;
  }
  return status_reply(404);
}

}  // namespace

Reply plan_reply(Route route, std::atomic<std::uint64_t>& fail_requests, const StatsSnapshot& stats,
                 std::span<char> scratch) {
  switch (route.kind) {
    case RouteKind::kRoot:
    case RouteKind::kBytes:
    case RouteKind::kChunked:
    case RouteKind::kDelay:
    case RouteKind::kPool: return payload_reply(route);
    case RouteKind::kStatus:
      return status_reply(route.value >= 200 && route.value <= 599 ? static_cast<int>(route.value) : 400);
    case RouteKind::kFail: {
      if (route.value == 0) return status_reply(400);
      const std::uint64_t nth = fail_requests.fetch_add(1, std::memory_order_relaxed) + 1;
      return status_reply(nth % route.value == 0 ? 500 : 200);
    }
    case RouteKind::kNever:
    case RouteKind::kHangUp:
    case RouteKind::kClose:
    case RouteKind::kRedirect:
    case RouteKind::kEcho: return connection_reply(route);
    case RouteKind::kStats: return stats_reply(stats, scratch);
    case RouteKind::kLogin:
    case RouteKind::kAuth:
    case RouteKind::kJson:
    case RouteKind::kShopProducts:
    case RouteKind::kShopOrder:
    case RouteKind::kSessionLogin:
    case RouteKind::kSessionPage: return app_reply(route);
    case RouteKind::kNotFound: return status_reply(404);
    case RouteKind::kBadParameter: return status_reply(400);
  }
  return status_reply(404);
}

std::string_view reason_phrase(int status) {
  const std::string_view text = status_text(status);
  return text.substr(0, text.size() - 1);
}

std::size_t write_head(std::span<char> dst, const Reply& reply, ConnectionHeader connection) {
  HeadWriter head(dst);
  head.add("HTTP/1.1 ").add(static_cast<std::uint64_t>(reply.status)).add(" ").add(reason_phrase(reply.status));
  if (reply.body == BodyKind::kChunked) {
    head.add("\r\nContent-Type: ").add(reply.content_type).add("\r\nTransfer-Encoding: chunked");
  } else if (reply.body != BodyKind::kNone) {
    head.add("\r\nContent-Type: ").add(reply.content_type).add("\r\nContent-Length: ").add(reply.body_bytes);
  }
  if (!reply.location.empty()) head.add("\r\nLocation: ").add(reply.location);
  if (!reply.set_cookie.empty()) head.add("\r\nSet-Cookie: ").add(reply.set_cookie);
  if (connection == ConnectionHeader::kClose) head.add("\r\nConnection: close");
  if (connection == ConnectionHeader::kKeepAlive) head.add("\r\nConnection: keep-alive");
  head.add("\r\n\r\n");
  return head.overflowed() ? 0 : head.size();
}

}  // namespace pacer::server
