// See request_context.h.
#include "scenario/request_context.h"

#include <strings.h>

#include <algorithm>
#include <ctime>

namespace pacer::scenario {

RequestContext::RequestContext(const Config& config)
    : config_(config), host_header_(config.target.host_header()), cookie_host_(config.target.host) {
  for (char& c : cookie_host_) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  for (const Header& h : config.headers) {
    if (strcasecmp(h.name.c_str(), "Cookie") == 0) given_cookie_ = h.value;
  }
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
  // "name\0value\0" per header (proto::ResponseCapture); the names as the server wrote them.
  std::string_view fields = u.capture.fields;
  constexpr std::string_view kSetCookie = "set-cookie";
  std::int64_t now_s = -1;
  while (!fields.empty()) {
    const std::size_t name_end = fields.find('\0');
    const std::size_t value_end = fields.find('\0', name_end + 1);
    if (value_end == std::string_view::npos) return;
    if (name_end == kSetCookie.size() && strncasecmp(fields.data(), kSetCookie.data(), kSetCookie.size()) == 0) {
      if (now_s < 0) now_s = cookie_now_s();
      u.cookies.store(fields.substr(name_end + 1, value_end - name_end - 1), from, now_s);
    }
    fields.remove_prefix(value_end + 1);
  }
}

}  // namespace pacer::scenario
