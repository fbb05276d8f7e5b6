// --web, --web-token, --web-linger; see the header.
#include "cli/web_options.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "cli/units.h"

namespace pacer::cli {

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_literal(int family, const std::string& text) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(family, text.c_str(), buffer) == 1;
}

}  // namespace

bool looks_like_web_address(std::string_view next) {
  const std::size_t colon = next.rfind(':');
  if (colon == std::string_view::npos || next.empty() || next.front() == '-') return false;
  if (next.find('/') != std::string_view::npos) return false;
  return all_digits(next.substr(colon + 1));
}

Status parse_web_address(std::string_view text, std::string_view flag, WebViewOptions& web) {
  const auto invalid = [&](std::string_view why) {
    return bad_argument(fmt::format("{}: '{}' {} (expected 127.0.0.1:8089, [::1]:8089, :8089 or 8089)", flag, text,
                                    why));
  };
  if (text.empty()) return Ok{};
  std::string host = web.host;
  std::string_view port_text = text;
  if (text.front() == '[') {
    const std::size_t close = text.find("]:");
    if (close == std::string_view::npos) return invalid("is not [IPv6]:PORT");
    host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
    if (!is_literal(AF_INET6, host)) return invalid("has an invalid IPv6 address");
  } else if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    if (colon > 0) host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string::npos) return invalid("needs brackets around an IPv6 address");
    if (host == "localhost") host = "127.0.0.1";
    if (!is_literal(AF_INET, host)) return invalid("has an invalid IPv4 address (or use localhost)");
  }
  const auto port = parse_port_number(port_text);
  if (!port) return invalid("has an invalid port (0 to 65535)");
  web.host = std::move(host);
  web.port = *port;
  return Ok{};
}

Result<std::string> parse_web_token(std::string_view text, std::string_view flag) {
  const bool allowed = std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~';
  });
  if (text.size() < 8 || text.size() > 256 || !allowed) {
    return bad_argument(fmt::format("{}: the token must be 8 to 256 characters from A-Z a-z 0-9 - . _ ~", flag));
  }
  return std::string(text);
}

Status finish_web_options(const WebViewOptions& web, bool token_given, bool linger_given) {
  if (web.enabled) return Ok{};
  if (token_given) return bad_argument("--web-token needs --web (the live web view it protects)");
  if (linger_given) return bad_argument("--web-linger needs --web (the live web view it keeps serving)");
  return Ok{};
}

}  // namespace pacer::cli
