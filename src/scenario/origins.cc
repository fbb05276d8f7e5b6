// See origins.h.
#include "scenario/origins.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "proto/uri_reference.h"

namespace pacer::scenario {

namespace {

bool origin_equal_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string origin_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A host as a URL may spell it: a name or an IPv4 address (letters, digits,
// '-', '.', '_', '~'), or an IPv6 literal (hex digits, ':', '.').
bool origin_plausible_host(std::string_view host, bool bracketed) {
  if (host.empty()) return false;
  return std::all_of(host.begin(), host.end(), [bracketed](char c) {
    const auto u = static_cast<unsigned char>(c);
    if (bracketed) return std::isxdigit(u) != 0 || c == ':' || c == '.';
    return std::isalnum(u) != 0 || c == '-' || c == '.' || c == '_' || c == '~';
  });
}

Origin make_origin(const std::string& scheme, std::string host, std::uint16_t port) {
  Origin o;
  o.target.scheme = scheme;
  o.target.host = std::move(host);
  o.target.port = port;
  o.target.has_explicit_port = port != (o.target.is_tls() ? 443 : 80);
  o.host_header = o.target.host_header();
  o.target.url = scheme + "://" + o.host_header + "/";
  o.cookie_host = origin_lower(o.target.host);
  o.prefix = scheme + "://" + o.host_header;
  return o;
}

}  // namespace

Origins::Origins(const Config& config) : config_(config) {
  origins_.reserve(1 + kMaxOthers);
  origins_.push_back(make_origin(config.target.scheme, config.target.host, config.target.port));
  origins_.front().host_header = config.target.host_header();
}

UrlPlace Origins::place(std::string_view url) {
  UrlPlace out;
  const proto::UriParts parts = proto::split_uri(url);
  const bool http = origin_equal_nocase(parts.scheme, "http");
  if (!parts.has_scheme || !parts.has_authority || (!http && !origin_equal_nocase(parts.scheme, "https"))) {
    out.error = "an absolute URL must be http:// or https://";
    return out;
  }
  const std::string_view authority = parts.authority;
  if (authority.find('@') != std::string_view::npos) {
    out.error = "an absolute URL with user info is not sent; give an Authorization header";
    return out;
  }
  // The host and port (IPv6 in brackets).
  std::string_view host = authority;
  std::uint16_t port = http ? 80 : 443;
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']', colon) == std::string_view::npos) {
    host = authority.substr(0, colon);
    const std::string_view digits = authority.substr(colon + 1);
    if (!digits.empty()) {
      unsigned value = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec != std::errc{} || end != digits.data() + digits.size() || value == 0 || value > 65535) {
        out.error = "the URL's port is not a number from 1 to 65535";
        return out;
      }
      port = static_cast<std::uint16_t>(value);
    }
  }
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  if (!origin_plausible_host(host, bracketed)) {
    out.error = "the URL's host is empty or holds a character a host name cannot";
    return out;
  }
  // The path and the query as they stand in the text (the fragment is never sent);
  // after an authority a path is empty or starts with '/'.
  if (parts.path.empty()) {
    path_scratch_.clear();  // not assign("/"): GCC 12 warns of an overlap that cannot be (-Wrestrict, its bug 105329)
    path_scratch_.push_back('/');
    if (parts.has_query) path_scratch_.append("?").append(parts.query);
    out.path = path_scratch_;
  } else {
    const char* begin = parts.path.data();
    const char* end = parts.has_query ? parts.query.data() + parts.query.size() : begin + parts.path.size();
    out.path = std::string_view(begin, static_cast<std::size_t>(end - begin));
  }
  const std::string scheme = http ? "http" : "https";
  for (std::size_t i = 0; i < origins_.size(); ++i) {
    const Target& t = origins_[i].target;
    if (t.scheme == scheme && t.port == port && origin_equal_nocase(t.host, host)) {
      out.origin = static_cast<std::uint8_t>(i);
      return out;
    }
  }
  if (config_.proxy) {
    error_scratch_ = "another origin than the run's URL cannot go through the proxy (" + config_.proxy->source +
                     "): its connections and tunnel are the URL's host's";
    out.error = error_scratch_;
  } else if (origins_.size() == 1 + kMaxOthers) {
    out.error = "more than 16 other origins (the most a scenario's users may name besides the run's URL)";
  } else {
    origins_.push_back(make_origin(scheme, origin_lower(host), port));
    out.origin = static_cast<std::uint8_t>(origins_.size() - 1);
    return out;
  }
  out.path = {};
  return out;
}

}  // namespace pacer::scenario
