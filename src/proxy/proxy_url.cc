// See proxy_url.h.
#include "proxy/proxy_url.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/base64.h"

namespace pacer::proxy {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> percent_decode(std::string_view text, std::string_view what) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int hi = i + 2 < text.size() ? hex_value(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return bad_input(fmt::format("the {} has a bad percent escape (write a literal '%' as %25)", what));
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

Result<std::uint16_t> parse_port(std::string_view digits) {
  if (digits.empty() || digits.size() > 5 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return bad_input(fmt::format("bad port '{}' (1-65535)", digits));
  }
  unsigned value = 0;
  for (char c : digits) value = value * 10 + static_cast<unsigned>(c - '0');
  if (value == 0 || value > 65535) return bad_input(fmt::format("bad port '{}' (1-65535)", digits));
  return static_cast<std::uint16_t>(value);
}

// Splits "host[:port]" or "[v6][:port]" into url.
Status parse_host_port(std::string_view authority, ProxyUrl& url) {
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad_input("an IPv6 address without its closing ']'");
    url.host = std::string(authority.substr(1, close - 1));
    // Brackets hold an IPv6 address and nothing else (the URL shows it bracketed again).
    const bool v6_chars = std::all_of(url.host.begin(), url.host.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
    });
    if (url.host.find(':') == std::string::npos || !v6_chars) {
      return bad_input(fmt::format("'[{}]' is not an IPv6 address in brackets", url.host));
    }
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return bad_input(fmt::format("unexpected '{}' after the address", rest));
    if (!rest.empty()) port = rest.substr(1);
    if (rest.size() == 1) return bad_input("an empty port after ':'");
  } else {
    const std::size_t colon = authority.rfind(':');
    if (colon != std::string_view::npos && authority.find(':') != colon) {
      return bad_input("an IPv6 address must be in brackets ([::1]:3128)");
    }
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return bad_input("an empty port after ':'");
    }
  }
  if (url.host.empty()) return bad_input("no host");
  for (char c : url.host) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '/' || c == '@' || c == '?' || c == '#' || c == '[' ||
        c == ']') {
      return bad_input(fmt::format("bad host '{}'", url.host));
    }
  }
  if (!port.empty()) {
    auto value = parse_port(port);
    if (!value) return value.error();
    url.port = *value;
  }
  return Ok{};
}

}  // namespace

std::string ProxyUrl::shown() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("http://{}{}{}:{}", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

Result<ProxyUrl> parse_proxy_url(std::string_view text) {
  if (text.empty()) return bad_input("the proxy URL is empty");
  // A CR or LF (a variable pasted with its line end) or a space: say so, not what it breaks further on.
  if (const auto bad = std::find_if(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7F; });
      bad != text.end()) {
    return bad_input(fmt::format("a proxy URL holds no control character or space (byte 0x{:02X} at offset {})",
                                 static_cast<unsigned char>(*bad), bad - text.begin()));
  }
  std::string_view rest = text;
  if (const std::size_t sep = rest.find("://"); sep != std::string_view::npos) {
    std::string scheme(rest.substr(0, sep));
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
    if (scheme != "http") {
      return bad_input(fmt::format("the proxy scheme '{}://' is not supported: pacer speaks to HTTP proxies only "
                                   "(http://host:port; for https:// targets it tunnels with CONNECT)",
                                   scheme));
    }
    rest.remove_prefix(sep + 3);
  }
  // A path (curl ignores it): only a bare "/" is accepted, anything more is a mistake.
  if (const std::size_t slash = rest.find('/'); slash != std::string_view::npos) {
    if (slash + 1 != rest.size()) return bad_input(fmt::format("a proxy URL has no path ('{}')", rest.substr(slash)));
    rest = rest.substr(0, slash);
  }
  ProxyUrl url;
  if (const std::size_t at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    const std::size_t colon = userinfo.find(':');
    auto user = percent_decode(userinfo.substr(0, colon), "proxy user");
    if (!user) return user.error();
    url.user = std::move(*user);
    if (colon != std::string_view::npos) {
      auto password = percent_decode(userinfo.substr(colon + 1), "proxy password");
      if (!password) return password.error();
      url.password = std::move(*password);
    }
    url.has_credentials = true;
    rest = rest.substr(at + 1);
  }
  if (Status hp = parse_host_port(rest, url); !hp) return hp.error();
  return url;
}

std::string basic_authorization(std::string_view user, std::string_view password) {
  const std::string plain = fmt::format("{}:{}", user, password);
  return "Basic " + base64_encode(plain);
}

}  // namespace pacer::proxy
