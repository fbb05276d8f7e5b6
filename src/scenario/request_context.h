// What every user's request is built against: the run's settings (-H, --proxy,
// keep-alive), the origins (origins.h: the Host header of each), and the origin
// of the users' cookie jars (a request's origin's host and scheme, its path). Set once before the run, read by
// the API (user_api.cc, user_cookies.cc) and by Users when a response comes.
// One worker thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cookie/cookie_jar.h"
#include "core/config.h"
#include "scenario/origins.h"
#include "scenario/user.h"

namespace pacer::scenario {

class RequestContext {
 public:
  explicit RequestContext(const Config& config);

  const Config& config() const { return config_; }
  // The Host header's value (and the absolute form's authority through a forwarding proxy).
  std::string_view host_header() const { return host_header_; }
  // What goes before every path a user gives: the URL's path without its query
  // and without a trailing '/' (Locust's base URL; "" for http://h/ and http://h).
  std::string_view path_prefix() const { return path_prefix_; }
  // The path a user gave with the prefix before it: `path` itself without a
  // prefix, else a view of this context's scratch, valid until the next call.
  std::string_view full_path(std::string_view path);
  // An absolute URL a user gave (u:get("http://h:8080/x")): its origin (0: the
  // run's) and the path and query to request, as it is (Locust sends an absolute
  // URL without the base URL's path); or why it is refused (origins.h).
  UrlPlace place(std::string_view url) { return origins_.place(url); }
  const Origins& origins() const { return origins_; }
  // Origin `origin`'s Host header (0: the run's).
  std::string_view host_header(std::uint8_t origin) const { return origins_.at(origin).host_header; }
  // Whether a default request name keeps the query string (--csv-format locust: Locust's rows).
  bool names_keep_query() const { return config_.csv_locust; }
  // Where u's requests go, for its cookie jar: u's last request's origin and path.
  cookie::Origin cookie_origin(const User& u) const;
  // The run's URL's host, for u.cookies.set (its cookies are the target's whatever u asked last).
  cookie::Origin target_cookie_origin() const {
    return cookie::Origin{origins_.at(0).cookie_host, "/", origins_.at(0).target.is_tls()};
  }
  // The wall clock in seconds, for the cookies' expiries.
  static std::int64_t cookie_now_s();
  // The last response's Set-Cookie headers into u's jar (u.capture's headers);
  // request_target: the request it answered (empty: u's last request's).
  void store_cookies(User& u, std::string_view request_target = {}) const;
  // -H's (or --cookie's) Cookie value, sent before the jar's pairs ("" when none).
  std::string_view given_cookie() const { return given_cookie_; }

 private:
  const Config& config_;
  std::string host_header_;
  std::string path_prefix_;
  std::string path_scratch_;  // full_path's (capacity reused: no allocation per request)
  Origins origins_;          // the run's origin and the others users named
  std::string given_cookie_;
};

}  // namespace pacer::scenario
