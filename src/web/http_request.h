// The web view's request parser: one HTTP/1.1 request head (request line and
// header fields) from the bytes received so far, bounded in size. Views point
// into the caller's buffer. Only what the web view's routes read is kept: the
// method, path, query, Host, Origin, Authorization, Accept, Last-Event-ID and Cookie. Pure; the
// web thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace pacer::web {

struct HttpRequest {
  std::string_view method;
  std::string_view path;    // the target before '?'
  std::string_view query;   // after '?', "" when none
  std::string_view host;
  std::string_view origin;
  std::string_view authorization;
  std::string_view accept;
  std::string_view last_event_id;
  std::string_view cookie;
};

enum class HeadState {
  kIncomplete,  // no blank line yet, and under the cap: read more
  kComplete,
  kBad,         // not an HTTP/1.x request head: 400
  kTooLarge,    // no blank line within max_head_bytes: 431
};

struct ParsedHead {
  HeadState state = HeadState::kIncomplete;
  HttpRequest request;
};

// Parses buffer's request head if complete. Lines end in CRLF (a bare LF is
// accepted, as RFC 9112 allows); obsolete line folding and control characters
// are refused.
ParsedHead parse_request_head(std::string_view buffer, std::size_t max_head_bytes);

// The value of `name` in a query string ("a=1&token=x"), undecoded; "" if absent.
std::string_view query_param(std::string_view query, std::string_view name);
// The value of cookie `name` in a Cookie field ("a=1; b=2"); "" if absent.
std::string_view cookie_value(std::string_view cookie, std::string_view name);

// Compares in time independent of where the first difference is (tokens).
bool equal_constant_time(std::string_view a, std::string_view b);

}  // namespace pacer::web
