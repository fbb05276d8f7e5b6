// See request_context.h.
#include "scenario/request_context.h"

#include <strings.h>

#include <algorithm>
#include <charconv>
#include <ctime>

#include "proto/http1_parser.h"
#include "proto/uri_reference.h"

namespace pacer::scenario {

RequestContext::RequestContext(const Config& config)
    : config_(config), host_header_(config.target.host_header()), cookie_host_(config.target.host) {
  for (char& c : cookie_host_) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  for (const Header& h : config.headers) {
    if (strcasecmp(h.name.c_str(), "Cookie") == 0) given_cookie_ = h.value;
  }
  const std::string_view path = config.target.path;
  path_prefix_ = path.substr(0, path.find('?'));
  if (!path_prefix_.empty() && path_prefix_.back() == '/') path_prefix_.pop_back();
}

std::string_view RequestContext::full_path(std::string_view path) {
  if (path_prefix_.empty()) return path;
  path_scratch_.assign(path_prefix_).append(path);
  return path_scratch_;
}

namespace {

bool equal_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string_view RequestContext::same_origin_path(std::string_view url) {
  const proto::UriParts parts = proto::split_uri(url);
  if (!parts.has_scheme || !parts.has_authority || !equal_nocase(parts.scheme, config_.target.scheme)) return {};
  // The authority's host and port (IPv6 in brackets; no user info: the target has none).
  std::string_view authority = parts.authority;
  std::string_view host = authority;
  std::uint16_t port = config_.target.is_tls() ? 443 : 80;
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']', colon) == std::string_view::npos) {
    host = authority.substr(0, colon);
    const std::string_view digits = authority.substr(colon + 1);
    if (!digits.empty()) {
      unsigned value = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec != std::errc{} || end != digits.data() + digits.size() || value > 65535) return {};
      port = static_cast<std::uint16_t>(value);
    }
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (!equal_nocase(host, config_.target.host) || port != config_.target.port) return {};
  // The path and the query as they stand in the text (the fragment is never sent);
  // after an authority a path is empty or starts with '/'.
  if (parts.path.empty()) {
    path_scratch_.assign("/");
    if (parts.has_query) path_scratch_.append("?").append(parts.query);
    return path_scratch_;
  }
  const char* begin = parts.path.data();
  const char* end = parts.has_query ? parts.query.data() + parts.query.size() : begin + parts.path.size();
  return std::string_view(begin, static_cast<std::size_t>(end - begin));
}

cookie::Origin RequestContext::cookie_origin(const User& u) const {
  // The request line: "METHOD path HTTP/1.1"; the path without its query.
  std::string_view line = u.request;
  const std::size_t start = line.find(' ');
  std::string_view path = start == std::string_view::npos ? "/" : line.substr(start + 1);
  path = path.substr(0, std::min(path.find(' '), path.find('?')));
  return cookie::Origin{cookie_host_, path, config_.target.is_tls()};
}

std::int64_t RequestContext::cookie_now_s() {
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);  // the vDSO: no system call
  return static_cast<std::int64_t>(wall.tv_sec);
}

void RequestContext::store_cookies(User& u, std::string_view request_target) const {
  cookie::Origin from = cookie_origin(u);
  if (!request_target.empty()) from.path = request_target.substr(0, request_target.find('?'));
  constexpr std::string_view kSetCookie = "set-cookie";
  std::int64_t now_s = -1;
  proto::for_each_captured_field(u.capture.fields, [&](std::string_view name, std::string_view value) {
    if (name.size() == kSetCookie.size() && strncasecmp(name.data(), kSetCookie.data(), kSetCookie.size()) == 0) {
      if (now_s < 0) now_s = cookie_now_s();
      u.cookies.store(value, from, now_s);
    }
    return true;
  });
}

}  // namespace pacer::scenario
