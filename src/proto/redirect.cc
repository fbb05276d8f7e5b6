// Redirector: follow-up requests for --follow-redirects. See redirect.h.
#include "proto/redirect.h"

#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "proto/uri_reference.h"

namespace pacer::proto {

namespace {

// Room reserved for a resolved target: a longer one grows its string once.
constexpr std::size_t kTypicalTargetBytes = 256;

std::uint64_t hash_of(std::string_view s) {  // FNV-1a
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A header line ("Name: value") that describes the body.
bool is_content_header(std::string_view line) {
  const std::size_t colon = line.find(':');
  return colon != std::string_view::npos && is_body_header(trim(line.substr(0, colon)));
}

std::uint16_t default_port(std::string_view scheme) { return iequals(scheme, "https") ? 443 : 80; }

}  // namespace

bool is_body_header(std::string_view name) {
  return iequals(name, "content-length") || iequals(name, "content-type") || iequals(name, "content-encoding") ||
         iequals(name, "transfer-encoding");
}

Redirector::Redirector(const Target& target, int max_hops, std::size_t request_bytes, bool builds_bytes)
    : scheme_(target.scheme),
      host_(target.host),
      port_(target.port),
      max_hops_(std::clamp(max_hops, 1, kMaxHops)),
      builds_bytes_(builds_bytes) {
  std::transform(host_.begin(), host_.end(), host_.begin(), [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  if (builds_bytes_) {
    for (std::string& b : buffers_) b.reserve(request_bytes + kTypicalTargetBytes);
  }
  for (std::string& t : targets_) t.reserve(kTypicalTargetBytes);
}

void Redirector::start(std::string_view request) {
  current_ = request;
  const std::string_view line = request.substr(0, request.find("\r\n"));
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = line.find(' ', sp1 + 1);
  start_target(line.substr(0, sp1), line.substr(sp1 + 1, sp2 - sp1 - 1));
}

bool Redirector::follow_up_is_head() const { return iequals(method_, "HEAD"); }

void Redirector::start_target(std::string_view method, std::string_view target) {
  method_ = method;
  target_ = target;
  hops_ = 0;
  body_dropped_ = false;
  visited_[0] = hash_of(target);
}

Redirector::Step Redirector::fail(const char* what, std::string_view detail) {
  what_ = what;
  detail_length_ = std::min(detail.size(), kDetailBytes);
  detail_cut_ = detail.size() > kDetailBytes;
  if (detail_length_ > 0) std::memcpy(detail_.data(), detail.data(), detail_length_);
  return Step::kFail;
}

const char* Redirector::reason() const {
  if (what_ != nullptr && *what_ == '\0') return "";  // no chain has failed yet
  char hops[64];
  const char* what = what_;
  if (what == nullptr) {
    std::snprintf(hops, sizeof hops, "more than %d hops (--follow-redirects)", max_hops_);
    what = hops;
  }
  if (detail_length_ == 0) {
    std::snprintf(reason_.data(), reason_.size(), "redirect: %s", what);
  } else {
    std::snprintf(reason_.data(), reason_.size(), "redirect: %s (Location: %.*s%s)", what,
                  static_cast<int>(detail_length_), detail_.data(), detail_cut_ ? "..." : "");
  }
  return reason_.data();
}

bool Redirector::reject(const char* what, std::string_view detail) {
  fail(what, detail);
  return false;
}

bool Redirector::same_origin(std::string_view scheme, std::string_view authority) const {
  if (!iequals(scheme, scheme_)) return false;
  std::string_view host = authority;
  std::uint16_t port = default_port(scheme);
  const std::size_t at = host.rfind('@');  // userinfo is not part of the origin
  if (at != std::string_view::npos) host.remove_prefix(at + 1);
  const std::size_t close = host.rfind(']');
  const std::size_t colon = host.rfind(':');
  if (colon != std::string_view::npos && (close == std::string_view::npos || colon > close)) {
    unsigned value = 0;
    const std::string_view digits = host.substr(colon + 1);
    if (digits.empty() || digits.size() > 5) return false;
    for (const char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > 65535) return false;
    port = static_cast<std::uint16_t>(value);
    host = host.substr(0, colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return port == port_ && iequals(host, host_);
}

bool Redirector::resolve(std::string_view location, std::string_view current_target, std::string& out) {
  location = trim(location);
  location = location.substr(0, location.find('#'));
  out.clear();
  if (location.empty()) return reject("empty Location");
  // RFC 3986 section 5 against the current target, at this origin. A reference
  // with a scheme (javascript:, mailto:, http:g without an authority) or an
  // authority names an origin of its own, which must be this one.
  const UriParts ref = split_uri(location);
  if (ref.has_scheme || ref.has_authority) {
    const std::string_view scheme = ref.has_scheme ? ref.scheme : std::string_view(scheme_);
    if (!ref.has_authority || !same_origin(scheme, ref.authority)) return reject("to another origin", location);
  }
  UriParts base = split_uri(current_target);
  base.scheme = scheme_;
  base.has_scheme = true;
  base.authority = {};
  base.has_authority = true;
  // An absolute reference already checked: its path and query, at the base's (this) origin.
  const UriParts target{{}, {}, ref.path, ref.query, {}, false, true, ref.has_query, false};
  resolve_reference(base, ref.has_scheme || ref.has_authority ? target : ref, out);
  out.erase(0, scheme_.size() + 3);  // "scheme://": the origin-form target stays, in place
  if (out.empty() || out.front() == '?') out.insert(0, 1, '/');
  for (const char c : out) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return reject("Location is not a usable URL", location);
  }
  return true;
}

void Redirector::build(std::string_view method, std::string_view target, bool drop_body) {
  const std::size_t line_end = current_.find("\r\n");
  const std::string_view line = current_.substr(0, line_end);
  const std::string_view version = line.substr(line.rfind(' ') + 1);
  std::string& out = buffers_[static_cast<std::size_t>(next_buffer_)];
  next_buffer_ ^= 1;
  out.clear();
  out.append(method).append(" ").append(target).append(" ").append(version).append("\r\n");
  const std::size_t head_end = current_.find("\r\n\r\n");
  std::size_t pos = line_end + 2;
  while (pos < head_end + 2) {
    const std::size_t eol = current_.find("\r\n", pos);
    const std::string_view header = current_.substr(pos, eol - pos);
    if (!(drop_body && is_content_header(header))) out.append(header).append("\r\n");
    pos = eol + 2;
  }
  out.append("\r\n");
  if (!drop_body) out.append(current_.substr(head_end + 4));
  current_ = out;
}

void Redirector::replace_cookie_line(std::string_view cookie_line) {
  if (!builds_bytes_ || current_.empty()) return;
  // Into the other buffer (it holds the request just answered, whose bytes are done with).
  std::string& out = buffers_[static_cast<std::size_t>(next_buffer_)];
  next_buffer_ ^= 1;
  out.clear();
  const std::size_t head_end = current_.find("\r\n\r\n");
  std::size_t pos = current_.find("\r\n") + 2;
  out.append(current_.substr(0, pos));
  while (pos < head_end + 2) {
    const std::size_t eol = current_.find("\r\n", pos);
    const std::string_view header = current_.substr(pos, eol - pos);
    if (!(header.size() > 7 && iequals(header.substr(0, 7), "cookie:"))) out.append(header).append("\r\n");
    pos = eol + 2;
  }
  out.append(cookie_line).append("\r\n").append(current_.substr(head_end + 4));
  method_ = std::string_view(out).substr(0, method_.size());
  current_ = out;
}

Redirector::Step Redirector::redirect(int status, std::string_view location, bool location_too_long) {
  if (location_too_long) return fail("Location longer than 8 KiB (the Location cap)");
  if (location.empty()) return fail("a redirect without a Location header");
  std::string& next_target = targets_[static_cast<std::size_t>(next_target_)];
  if (!resolve(location, target_, next_target)) return Step::kFail;
  const std::uint64_t h = hash_of(next_target);
  for (int i = 0; i <= hops_; ++i) {
    if (visited_[static_cast<std::size_t>(i)] == h) return fail("a loop", location);
  }
  if (hops_ >= max_hops_) return fail(nullptr, location);  // "more than max_hops_ hops" (see reason())
  visited_[static_cast<std::size_t>(++hops_)] = h;
  next_target_ ^= 1;
  // RFC 9110 15.4: 303 -> GET (HEAD stays); 301/302: POST -> GET, as browsers do; 307/308 keep both.
  std::string_view method = method_;
  if (status == 303 && !iequals(method, "HEAD")) method = "GET";
  if ((status == 301 || status == 302) && iequals(method, "POST")) method = "GET";
  const bool drop_body = method != method_;
  body_dropped_ = body_dropped_ || drop_body;
  if (builds_bytes_) {
    build(method, next_target, drop_body);  // current_ is the new request's bytes now
    method_ = current_.substr(0, method.size());
  } else {
    method_ = method;  // the caller's method (stable for the run) or the literal "GET"
  }
  answered_target_ = target_;
  target_ = next_target;
  return Step::kFollow;
}

}  // namespace pacer::proto
