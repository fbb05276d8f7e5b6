// See header_rules.h. The messages are the user's: they name the header as
// given (control characters as '?') and say what to do instead.
#include "proto/header_rules.h"

#include <strings.h>

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

namespace pacer::proto {

namespace {

bool is_named(std::string_view name, std::string_view wanted) {
  return name.size() == wanted.size() && strncasecmp(name.data(), wanted.data(), name.size()) == 0;
}

bool is_control(char c) {
  const auto b = static_cast<unsigned char>(c);
  return (b < 0x20 && b != '\t') || b == 0x7f;
}

// The text with every control character shown as '?', so a message never
// carries a raw CR, LF, NUL or ESC.
std::string shown(std::string_view text) {
  std::string out(text);
  std::replace_if(out.begin(), out.end(), [](char c) { return is_control(c) || c == '\t'; }, '?');
  return out;
}

bool is_http2_connection_specific(std::string_view name, std::string_view value) {
  constexpr std::array<std::string_view, 5> kForbidden{"connection", "keep-alive", "proxy-connection",
                                                       "transfer-encoding", "upgrade"};
  return std::any_of(kForbidden.begin(), kForbidden.end(), [&](std::string_view f) { return is_named(name, f); }) ||
         (is_named(name, "te") && !is_named(value, "trailers"));
}

// A Content-Length value that is exactly `bytes` (digits only, leading zeros allowed).
bool states_length(std::string_view value, std::size_t bytes) {
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (value.empty() || !std::all_of(value.begin(), value.end(), is_digit)) return false;
  const std::size_t first = std::min(value.find_first_not_of('0'), value.size());
  return value.substr(first) == (bytes == 0 ? std::string() : std::to_string(bytes));
}

std::string content_length_problem(std::string_view name, std::string_view value, const HeaderContext& context) {
  if (states_length(value, context.body_bytes.value_or(0))) return {};
  const std::string flag = context.body_flag.empty() ? std::string() : fmt::format(" ({})", context.body_flag);
  if (context.body_bytes) {
    return fmt::format("'{}: {}' contradicts the body{}, which is {} bytes; pacer sets Content-Length from the "
                       "body itself (drop the header)",
                       shown(name), shown(value), flag, *context.body_bytes);
  }
  return fmt::format("'{}: {}' on a request without a body{}: the server would wait for bytes that never come (drop "
                     "the header{})",
                     shown(name), shown(value), flag,
                     context.body_flag.empty() ? std::string() : fmt::format(", or give the body with {}", context.body_flag));
}

}  // namespace

bool is_header_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

bool is_header_value(std::string_view text) { return std::none_of(text.begin(), text.end(), is_control); }

std::string header_problem(std::string_view name, std::string_view value, const HeaderContext& context) {
  if (!is_header_token(name)) {
    return fmt::format("header name '{}' is not a valid HTTP token (a control character, a space or a ':' in it, "
                       "or empty)",
                       shown(name));
  }
  if (!is_header_value(value)) {
    return fmt::format("header '{}': a control character (CR, LF, NUL, ...) in its value, which would break the "
                       "request apart",
                       shown(name));
  }
  if (is_named(name, "content-length")) {
    if (std::string problem = content_length_problem(name, value, context); !problem.empty()) return problem;
  }
  if (context.http2 && is_http2_connection_specific(name, value)) {
    return fmt::format("'{}: {}' is a connection-specific header, which HTTP/2 forbids (--http2; RFC 9113 section "
                       "8.2.2)",
                       name, value);
  }
  if (is_named(name, "transfer-encoding")) {
    return fmt::format("'{}: {}' contradicts the framing pacer sends (the body whole, with a Content-Length; never "
                       "chunked): drop the header",
                       name, value);
  }
  return {};
}

std::string header_list_problem(const std::vector<Header>& headers, const HeaderContext& context) {
  int hosts = 0;
  for (const Header& h : headers) {
    if (std::string problem = header_problem(h.name, h.value, context); !problem.empty()) return problem;
    if (is_named(h.name, "host") && ++hosts == 2) {
      return fmt::format("a second Host header ('{}: {}'): a server must answer 400 to two (RFC 9112 section 3.2); "
                         "give one",
                         h.name, h.value);
    }
  }
  return {};
}

}  // namespace pacer::proto
