// A cookie jar (RFC 6265 section 5): what a scenario's virtual user keeps of the
// Set-Cookie headers it receives and sends back in its Cookie header, as a
// browser or a Python requests session (Locust's users) does.
//
// Rules kept: the Domain attribute (a domain cookie matches the domain and its
// subdomains; without one the cookie is host-only; a Domain the request host does
// not domain-match is refused; an IP address only matches itself), the Path
// attribute (default: the request path's directory) and path matching, Expires
// and Max-Age (Max-Age wins, whatever their order; a date in the past or
// Max-Age <= 0 deletes), Secure (sent only over https; a Secure cookie set over
// plain http is refused, as RFC 6265bis says, and so are the name prefixes'
// cookies that break their rules: __Secure- without Secure, __Host- without Secure,
// with a Domain or with a Path other than /), HttpOnly (accepted and kept: a
// load generator has no scripts to hide it from). Sent in the order section 5.4
// asks: longer paths first, then older first. Not kept: the public suffix list
// (a jar talks to one target host) and SameSite (no cross-site requests here).
//
// Limits, so that a hostile server cannot grow memory without bound: at most
// kMaxCookies cookies per jar (the oldest is evicted past it, after the expired
// ones), a cookie's name and value at most kMaxCookieBytes together, its Domain
// at most 255 bytes and its Path at most 1024 (longer ones are ignored, as
// RFC 6265bis says for attributes). A jar thus holds at most about 270 KiB.
//
// Memory: a cookie's strings keep their capacity when it is replaced, so a server
// that sets the same cookie again (a refreshed session) and a request that sends
// the cookies (append_header) allocate nothing. Times are Unix seconds, given by
// the caller. One thread (the owning worker's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace pacer::cookie {

inline constexpr std::int64_t kSessionCookie = std::numeric_limits<std::int64_t>::max();  // no expiry

struct Cookie {
  std::string name;
  std::string value;
  std::string domain;  // lower case, no leading dot
  std::string path;
  std::int64_t expires_s = kSessionCookie;  // Unix seconds; kSessionCookie: until the user ends
  std::uint64_t created = 0;                // order of creation in the jar (section 5.4's tie-break)
  bool host_only = true;
  bool secure = false;
  bool http_only = false;
};

// Where a request goes (or a response came from): the host (lower case) and
// the request path (without the query), and whether the channel is https.
struct Origin {
  std::string_view host;
  std::string_view path;
  bool secure = false;
};

// What store() did with a Set-Cookie header.
enum class Stored : std::uint8_t {
  kStored,    // added, or replaced a cookie of the same name, domain and path
  kDeleted,   // expired on arrival: an existing cookie of that name, domain and path was removed (if any)
  kIgnored,   // refused (no '=', an empty name, a foreign Domain, too large, Secure over http)
};

class CookieJar {
 public:
  static constexpr std::size_t kMaxCookies = 50;
  static constexpr std::size_t kMaxCookieBytes = 4096;
  static constexpr std::size_t kMaxDomainBytes = 255;
  static constexpr std::size_t kMaxPathBytes = 1024;

  // One Set-Cookie header's value, received from `from` at now_s.
  Stored store(std::string_view set_cookie, const Origin& from, std::int64_t now_s);
  // A cookie set by the user's own code (u.cookies.set): as if received from `from`.
  // domain empty: host-only for from.host; path empty: "/"; max_age_s < 0: a session cookie.
  Stored set(std::string_view name, std::string_view value, const Origin& from, std::string_view domain,
             std::string_view path, std::int64_t max_age_s, bool secure, std::int64_t now_s);

  // A cookie as given whole (a cookies.txt line): domain lower case without a
  // leading dot; expires_s <= now_s deletes.
  Stored put(std::string_view name, std::string_view value, std::string_view domain, bool host_only,
             std::string_view path, std::int64_t expires_s, bool secure, bool http_only, std::int64_t now_s);

  // Appends the cookies that go with a request to `to` at now_s, as "a=1; b=2",
  // each preceded by `separator` but the first when `out` gets nothing before it
  // (first: whether none was appended before). Returns how many were appended.
  std::size_t append_header(std::string& out, const Origin& to, std::int64_t now_s, bool first = true) const;

  // The value of the cookie named `name` that goes to `to` first (null: none).
  const Cookie* find(std::string_view name, const Origin& to, std::int64_t now_s) const;
  // Removes every cookie named `name`; returns how many.
  std::size_t remove(std::string_view name);
  // A new user starts empty (the strings' memory is kept for the next one).
  void clear() { count_ = 0; }
  std::size_t size() const { return count_; }
  const Cookie& at(std::size_t i) const { return cookies_[i]; }

 private:
  // The cookie of that name, domain and path, or a slot for a new one (evicting
  // past kMaxCookies); null when the cookie is to be dropped.
  Cookie* slot_for(std::string_view name, std::string_view domain, std::string_view path, std::int64_t now_s,
                   bool& existed);
  void erase(std::size_t i);

  std::vector<Cookie> cookies_;  // the first count_ are live; the rest keep their strings' memory
  std::size_t count_ = 0;
  std::uint64_t created_ = 0;
};

// RFC 6265 section 5.1.1: a cookie date ("Wed, 09 Jun 2021 10:18:14 GMT" and
// its variants) as Unix seconds; false when it is not one.
bool parse_cookie_date(std::string_view text, std::int64_t& unix_s);
// Section 5.1.4: whether a request path matches a cookie path.
bool path_matches(std::string_view request_path, std::string_view cookie_path);
// Section 5.1.3: whether a host (lower case) domain-matches a domain.
bool domain_matches(std::string_view host, std::string_view domain);
// Section 5.1.4: the default path of a request path.
std::string_view default_path(std::string_view request_path);

}  // namespace pacer::cookie
