// The web view's request head parser; see the header.
#include "web/http_request.h"

#include <strings.h>

#include <algorithm>

namespace pacer::web {

namespace {

bool is_tchar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool has_control(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// "GET /path?q HTTP/1.1"
bool parse_request_line(std::string_view line, HttpRequest& out) {
  const std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return false;
  const std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return false;
  out.method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (out.method.empty() || !std::all_of(out.method.begin(), out.method.end(), is_tchar)) return false;
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return false;
  if (target.empty() || target.front() != '/' || has_control(target) || target.find(' ') != std::string_view::npos) {
    return false;
  }
  const std::size_t q = target.find('?');
  out.path = target.substr(0, q);
  out.query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  return true;
}

bool parse_field(std::string_view line, HttpRequest& out) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view name = line.substr(0, colon);
  if (!std::all_of(name.begin(), name.end(), is_tchar)) return false;  // also refuses folding (leading space)
  const std::string_view value = trim(line.substr(colon + 1));
  if (has_control(value)) return false;
  // A field the view decides on may come once: two Hosts (RFC 9112 3.2 says
  // 400), two Origins or two Authorizations would let one check read one copy
  // and another check the other. A seen field's view is non-null, even when empty.
  const auto once = [&value](std::string_view& field) {
    if (field.data() != nullptr) return false;
    field = value;
    return true;
  };
  if (iequals(name, "host")) {
    return once(out.host);
  } else if (iequals(name, "origin")) {
    return once(out.origin);
  } else if (iequals(name, "authorization")) {
    return once(out.authorization);
  } else if (iequals(name, "accept")) {
    out.accept = value;  // /metrics: OpenMetrics when asked for
  } else if (iequals(name, "last-event-id")) {
    out.last_event_id = value;
  } else if (iequals(name, "cookie")) {
    out.cookie = value;  // browsers send one Cookie field over HTTP/1.1
  }
  return true;
}

}  // namespace

ParsedHead parse_request_head(std::string_view buffer, std::size_t max_head_bytes) {
  ParsedHead out;
  std::size_t pos = 0;
  bool first = true;
  while (true) {
    const std::size_t lf = buffer.find('\n', pos);
    if (lf == std::string_view::npos || lf >= max_head_bytes) {
      out.state = buffer.size() >= max_head_bytes ? HeadState::kTooLarge : HeadState::kIncomplete;
      return out;
    }
    std::string_view line = buffer.substr(pos, lf - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = lf + 1;
    if (first && line.empty()) continue;  // RFC 9112 2.2: empty lines before the request line are ignored
    if (line.empty()) break;
    const bool ok = first ? parse_request_line(line, out.request) : parse_field(line, out.request);
    if (!ok) {
      out.state = HeadState::kBad;
      return out;
    }
    first = false;
  }
  out.state = HeadState::kComplete;
  return out;
}

std::string_view query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const std::size_t amp = std::min(query.find('&'), query.size());
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) return pair.substr(eq + 1);
    query.remove_prefix(std::min(amp + 1, query.size()));
  }
  return {};
}

std::string_view cookie_value(std::string_view cookie, std::string_view name) {
  while (!cookie.empty()) {
    const std::size_t semi = std::min(cookie.find(';'), cookie.size());
    const std::string_view pair = trim(cookie.substr(0, semi));
    const std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) return pair.substr(eq + 1);
    cookie.remove_prefix(std::min(semi + 1, cookie.size()));
  }
  return {};
}

bool equal_constant_time(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) diff = static_cast<unsigned char>(diff | (a[i] ^ b[i]));
  return diff == 0;
}

}  // namespace pacer::web
