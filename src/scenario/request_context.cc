// See request_context.h.
#include "scenario/request_context.h"

#include <strings.h>

#include <algorithm>
#include <ctime>

#include "proto/http1_parser.h"

namespace pacer::scenario {

RequestContext::RequestContext(const Config& config)
    : config_(config), host_header_(config.target.host_header()), origins_(config) {
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

cookie::Origin RequestContext::cookie_origin(const User& u) const {
  // The request line: "METHOD path HTTP/1.1"; the path without its query.
  std::string_view line = u.request;
  const std::size_t start = line.find(' ');
  std::string_view path = start == std::string_view::npos ? "/" : line.substr(start + 1);
  path = path.substr(0, std::min(path.find(' '), path.find('?')));
  const Origin& origin = origins_.at(u.origin);
  return cookie::Origin{origin.cookie_host, path, origin.target.is_tls()};
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
