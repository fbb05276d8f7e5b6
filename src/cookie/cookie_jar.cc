// See cookie_jar.h.
#include "cookie/cookie_jar.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <arpa/inet.h>
#include <strings.h>

namespace pacer::cookie {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool same_text(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Section 5.1.1's delimiter.
bool is_date_delimiter(unsigned char c) {
  return c == 0x09 || (c >= 0x20 && c <= 0x2F) || (c >= 0x3B && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

// 1*max DIGIT at the token's start, followed by nothing or a non-digit; -1 if not.
int leading_number(std::string_view token, std::size_t min_digits, std::size_t max_digits, std::size_t& used) {
  std::size_t n = 0;
  int value = 0;
  while (n < token.size() && is_digit(token[n])) {
    if (n == max_digits) return -1;
    value = value * 10 + (token[n] - '0');
    ++n;
  }
  if (n < min_digits) return -1;
  used = n;
  return value;
}

bool parse_time(std::string_view token, int& h, int& m, int& s) {
  std::size_t used = 0;
  int parts[3];
  for (int i = 0; i < 3; ++i) {
    parts[i] = leading_number(token, 1, 2, used);
    if (parts[i] < 0) return false;
    token.remove_prefix(used);
    if (i < 2) {
      if (token.empty() || token.front() != ':') return false;
      token.remove_prefix(1);
    }
  }
  h = parts[0];
  m = parts[1];
  s = parts[2];
  return true;
}

int parse_month(std::string_view token) {
  static constexpr std::array<std::string_view, 12> kMonths{"jan", "feb", "mar", "apr", "may", "jun",
                                                            "jul", "aug", "sep", "oct", "nov", "dec"};
  if (token.size() < 3) return -1;
  for (std::size_t i = 0; i < kMonths.size(); ++i) {
    if (same_text(token.substr(0, 3), kMonths[i])) return static_cast<int>(i) + 1;
  }
  return -1;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool is_ip_address(std::string_view host) {
  char text[64];
  if (host.size() >= sizeof text) return false;
  std::copy(host.begin(), host.end(), text);
  text[host.size()] = '\0';
  unsigned char addr[16];
  return inet_pton(AF_INET, text, addr) == 1 || inet_pton(AF_INET6, text, addr) == 1;
}

void lower_into(std::string& out, std::string_view text) {
  out.assign(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// The attributes of one Set-Cookie header (section 5.2), views into it.
struct Attributes {
  std::string_view domain;
  std::string_view path;
  bool has_domain = false;
  bool has_path = false;
  bool has_max_age = false;
  bool has_expires = false;
  std::int64_t max_age_s = 0;
  std::int64_t expires_s = 0;
  bool secure = false;
  bool http_only = false;
};

void parse_attribute(std::string_view name, std::string_view value, Attributes& a) {
  if (same_text(name, "expires")) {
    std::int64_t at = 0;
    if (parse_cookie_date(value, at)) {
      a.has_expires = true;
      a.expires_s = at;
    }
  } else if (same_text(name, "max-age")) {
    // Section 5.2.2: a '-' or a digit first, then digits only; otherwise ignored.
    if (value.empty() || !(is_digit(value.front()) || value.front() == '-')) return;
    const bool negative = value.front() == '-';
    std::string_view digits = negative ? value.substr(1) : value;
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), is_digit)) return;
    std::int64_t seconds = 0;
    for (char c : digits) {
      seconds = seconds > (std::numeric_limits<std::int64_t>::max() - 9) / 10 ? std::numeric_limits<std::int64_t>::max() / 2
                                                                              : seconds * 10 + (c - '0');
    }
    a.has_max_age = true;
    a.max_age_s = negative ? -1 : seconds;
  } else if (same_text(name, "domain")) {
    if (value.empty()) return;  // section 5.2.3: ignored
    if (value.front() == '.') value.remove_prefix(1);
    a.has_domain = true;
    a.domain = value;
  } else if (same_text(name, "path")) {
    a.has_path = !value.empty() && value.front() == '/';  // otherwise the default path (5.2.4)
    a.path = value;
  } else if (same_text(name, "secure")) {
    a.secure = true;
  } else if (same_text(name, "httponly")) {
    a.http_only = true;
  }
}

}  // namespace

bool parse_cookie_date(std::string_view text, std::int64_t& unix_s) {
  bool found_time = false;
  bool found_day = false;
  bool found_month = false;
  bool found_year = false;
  int hour = 0, minute = 0, second = 0, day = 0, month = 0, year = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_date_delimiter(static_cast<unsigned char>(text[i]))) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_date_delimiter(static_cast<unsigned char>(text[i]))) ++i;
    const std::string_view token = text.substr(start, i - start);
    if (token.empty()) continue;
    std::size_t used = 0;
    int n = 0;
    if (!found_time && parse_time(token, hour, minute, second)) {
      found_time = true;
    } else if (!found_day && (n = leading_number(token, 1, 2, used)) >= 0) {
      found_day = true;
      day = n;
    } else if (!found_month && (n = parse_month(token)) > 0) {
      found_month = true;
      month = n;
    } else if (!found_year && (n = leading_number(token, 2, 4, used)) >= 0) {
      found_year = true;
      year = n;
    }
  }
  if (found_year && year >= 70 && year <= 99) year += 1900;
  if (found_year && year >= 0 && year <= 69) year += 2000;
  if (!found_time || !found_day || !found_month || !found_year) return false;
  if (day < 1 || day > 31 || year < 1601 || hour > 23 || minute > 59 || second > 59) return false;
  unix_s = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  return true;
}

bool path_matches(std::string_view request_path, std::string_view cookie_path) {
  if (request_path == cookie_path) return true;
  if (request_path.size() <= cookie_path.size() || request_path.substr(0, cookie_path.size()) != cookie_path) {
    return false;
  }
  return cookie_path.back() == '/' || request_path[cookie_path.size()] == '/';
}

bool domain_matches(std::string_view host, std::string_view domain) {
  if (host == domain) return true;
  if (host.size() <= domain.size() || host.substr(host.size() - domain.size()) != domain) return false;
  return host[host.size() - domain.size() - 1] == '.' && !is_ip_address(host);
}

std::string_view default_path(std::string_view request_path) {
  if (request_path.empty() || request_path.front() != '/') return "/";
  const std::size_t last = request_path.rfind('/');
  if (last == 0) return "/";
  return request_path.substr(0, last);
}

namespace {

// RFC 6265bis section 5.7, the cookie name prefixes (compared without case): a
// __Secure- cookie must be Secure (and so set over https); a __Host- cookie also
// host-only with Path=/, so no subdomain or plain-http page can plant one.
bool prefix_allows(std::string_view name, const Attributes& a) {
  const auto has_prefix = [&](std::string_view prefix) {
    return name.size() >= prefix.size() && same_text(name.substr(0, prefix.size()), prefix);
  };
  if (has_prefix("__Secure-")) return a.secure;
  if (has_prefix("__Host-")) return a.secure && !a.has_domain && a.has_path && a.path == "/";
  return true;
}

}  // namespace

Stored CookieJar::store(std::string_view set_cookie, const Origin& from, std::int64_t now_s) {
  // RFC 6265bis section 5.7: a control character (but HTAB) anywhere refuses the whole
  // header, so nothing stored can break the Cookie header it is sent back in.
  for (const char ch : set_cookie) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return Stored::kIgnored;
  }
  const std::size_t semicolon = set_cookie.find(';');
  const std::string_view pair = set_cookie.substr(0, semicolon);
  const std::size_t equals = pair.find('=');
  if (equals == std::string_view::npos) return Stored::kIgnored;  // section 5.2, step 2
  const std::string_view name = trim(pair.substr(0, equals));
  const std::string_view value = trim(pair.substr(equals + 1));
  if (name.empty()) return Stored::kIgnored;
  Attributes a;
  std::string_view rest = semicolon == std::string_view::npos ? std::string_view() : set_cookie.substr(semicolon + 1);
  while (!rest.empty()) {
    const std::size_t end = rest.find(';');
    const std::string_view av = rest.substr(0, end);
    const std::size_t eq = av.find('=');
    parse_attribute(trim(av.substr(0, eq)), eq == std::string_view::npos ? std::string_view() : trim(av.substr(eq + 1)),
                    a);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  std::int64_t expires_s = kSessionCookie;
  if (a.has_max_age) {
    expires_s = a.max_age_s <= 0 ? std::numeric_limits<std::int64_t>::min() : now_s + a.max_age_s;
  } else if (a.has_expires) {
    expires_s = a.expires_s;
  }
  if (a.domain.size() > kMaxDomainBytes || a.path.size() > kMaxPathBytes) return Stored::kIgnored;
  char domain_lower[kMaxDomainBytes];
  std::size_t domain_len = 0;
  for (char c : a.domain) domain_lower[domain_len++] = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view domain(domain_lower, domain_len);
  if (a.has_domain && !domain_matches(from.host, domain)) return Stored::kIgnored;  // section 5.3, step 6
  if (a.secure && !from.secure) return Stored::kIgnored;
  if (!prefix_allows(name, a)) return Stored::kIgnored;
  return put(name, value, a.has_domain ? domain : from.host, !a.has_domain,
             a.has_path ? a.path : default_path(from.path), expires_s, a.secure, a.http_only, now_s);
}

Stored CookieJar::set(std::string_view name, std::string_view value, const Origin& from, std::string_view domain,
                      std::string_view path, std::int64_t max_age_s, bool secure, std::int64_t now_s) {
  if (name.empty() || domain.size() > kMaxDomainBytes || path.size() > kMaxPathBytes) return Stored::kIgnored;
  if (!domain.empty() && domain.front() == '.') domain.remove_prefix(1);
  char domain_lower[kMaxDomainBytes];
  for (std::size_t i = 0; i < domain.size(); ++i) {
    domain_lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(domain[i])));
  }
  const std::string_view lowered(domain_lower, domain.size());
  const std::int64_t expires_s = max_age_s < 0 ? kSessionCookie
                                 : max_age_s == 0 ? std::numeric_limits<std::int64_t>::min()
                                                  : now_s + max_age_s;
  return put(name, value, domain.empty() ? from.host : lowered, domain.empty(), path.empty() ? "/" : path,
             expires_s, secure, false, now_s);
}

Stored CookieJar::put(std::string_view name, std::string_view value, std::string_view domain, bool host_only,
                      std::string_view path, std::int64_t expires_s, bool secure, bool http_only, std::int64_t now_s) {
  if (name.size() + value.size() > kMaxCookieBytes) return Stored::kIgnored;
  if (expires_s <= now_s) {  // section 5.3, step 11-12: an expired cookie only removes its old self
    for (std::size_t i = 0; i < count_; ++i) {
      const Cookie& c = cookies_[i];
      if (c.name == name && c.domain == domain && c.path == path) {
        erase(i);
        break;
      }
    }
    return Stored::kDeleted;
  }
  bool existed = false;
  Cookie* c = slot_for(name, domain, path, now_s, existed);
  if (!existed) {
    c->name.assign(name);
    lower_into(c->domain, domain);
    c->path.assign(path);
    c->created = ++created_;  // a replaced cookie keeps its creation time (section 5.3, step 11.3)
  }
  c->value.assign(value);
  c->expires_s = expires_s;
  c->host_only = host_only;
  c->secure = secure;
  c->http_only = http_only;
  return Stored::kStored;
}

Cookie* CookieJar::slot_for(std::string_view name, std::string_view domain, std::string_view path, std::int64_t now_s,
                            bool& existed) {
  for (std::size_t i = 0; i < count_; ++i) {
    Cookie& c = cookies_[i];
    if (c.name == name && c.domain == domain && c.path == path) {
      existed = true;
      return &c;
    }
  }
  existed = false;
  if (count_ == kMaxCookies) {
    // Full: the expired go first, then the oldest (section 5.3's eviction).
    std::size_t victim = 0;
    for (std::size_t i = 0; i < count_; ++i) {
      if (cookies_[i].expires_s <= now_s) {
        victim = i;
        break;
      }
      if (cookies_[i].created < cookies_[victim].created) victim = i;
    }
    erase(victim);
  }
  if (count_ == cookies_.size()) cookies_.emplace_back();
  return &cookies_[count_++];
}

void CookieJar::erase(std::size_t i) {
  // Moved to the end of the live ones' range, then out of it: its strings' memory stays for reuse.
  std::rotate(cookies_.begin() + static_cast<std::ptrdiff_t>(i), cookies_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
              cookies_.begin() + static_cast<std::ptrdiff_t>(count_));
  --count_;
}

std::size_t CookieJar::remove(std::string_view name) {
  std::size_t removed = 0;
  for (std::size_t i = 0; i < count_;) {
    if (cookies_[i].name == name) {
      erase(i);
      ++removed;
    } else {
      ++i;
    }
  }
  return removed;
}

namespace {
bool goes_to(const Cookie& c, const Origin& to, std::int64_t now_s) {
  if (c.expires_s <= now_s) return false;
  if (c.secure && !to.secure) return false;
  if (c.host_only ? to.host != c.domain : !domain_matches(to.host, c.domain)) return false;
  return path_matches(to.path, c.path);
}

// Section 5.4, step 2: longer paths first, then earlier creation.
bool sent_before(const Cookie& a, const Cookie& b) {
  return a.path.size() != b.path.size() ? a.path.size() > b.path.size() : a.created < b.created;
}
}  // namespace

std::size_t CookieJar::append_header(std::string& out, const Origin& to, std::int64_t now_s, bool first) const {
  // A selection by repeated minimum (at most kMaxCookies, no scratch memory): the
  // next cookie to send is the first by sent_before among those after the last sent.
  std::size_t sent = 0;
  const Cookie* last = nullptr;
  for (;;) {
    const Cookie* next = nullptr;
    for (std::size_t i = 0; i < count_; ++i) {
      const Cookie& c = cookies_[i];
      if (!goes_to(c, to, now_s) || (last != nullptr && !sent_before(*last, c))) continue;
      if (next == nullptr || sent_before(c, *next)) next = &c;
    }
    if (next == nullptr) return sent;
    if (!first || sent > 0) out.append("; ");
    out.append(next->name).append("=").append(next->value);
    ++sent;
    last = next;
  }
}

const Cookie* CookieJar::find(std::string_view name, const Origin& to, std::int64_t now_s) const {
  const Cookie* best = nullptr;
  for (std::size_t i = 0; i < count_; ++i) {
    const Cookie& c = cookies_[i];
    if (c.name != name || !goes_to(c, to, now_s)) continue;
    if (best == nullptr || sent_before(c, *best)) best = &c;
  }
  return best;
}

}  // namespace pacer::cookie
