// See cookie_file.h.
#include "cookie/cookie_file.h"

#include <charconv>

#include <fmt/format.h>

#include "proto/header_rules.h"

namespace pacer::cookie {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Splits `line` at tabs into up to `max` fields; returns how many.
std::size_t split_tabs(std::string_view line, std::string_view* fields, std::size_t max) {
  std::size_t n = 0;
  while (n < max) {
    const std::size_t tab = line.find('\t');
    fields[n++] = line.substr(0, tab);
    if (tab == std::string_view::npos) break;
    line.remove_prefix(tab + 1);
  }
  return n;
}

}  // namespace

Result<std::string> parse_cookie_pairs(std::string_view text, std::string_view flag) {
  std::string out;
  while (!text.empty()) {
    const std::size_t semicolon = text.find(';');
    const std::string_view pair = trim(text.substr(0, semicolon));
    text = semicolon == std::string_view::npos ? std::string_view() : text.substr(semicolon + 1);
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos || trim(pair.substr(0, equals)).empty()) {
      return bad_argument(fmt::format("{}: '{}' is not a cookie (name=value; name2=value2, or @FILE)", flag, pair));
    }
    if (!proto::is_header_value(pair)) {
      return bad_argument(fmt::format("{}: the cookie '{}' holds a control character", flag, pair));
    }
    if (!out.empty()) out += "; ";
    out += pair;
  }
  if (out.empty()) return bad_argument(fmt::format("{}: no cookie given (name=value; name2=value2, or @FILE)", flag));
  return out;
}

Status load_cookie_file(std::string_view text, std::string_view source, std::int64_t now_s, CookieJar& jar) {
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    bool http_only = false;
    constexpr std::string_view kHttpOnly = "#HttpOnly_";
    if (line.substr(0, kHttpOnly.size()) == kHttpOnly) {
      http_only = true;
      line.remove_prefix(kHttpOnly.size());
    } else if (trim(line).empty() || line.front() == '#') {
      continue;
    }
    std::string_view f[7];
    if (split_tabs(line, f, 7) != 7) {
      return bad_input(fmt::format("{}, line {}: not a cookies.txt line (seven tab-separated fields: domain, "
                                   "subdomains, path, secure, expiry, name, value)",
                                   source, line_number));
    }
    std::int64_t expires_s = 0;
    const auto [end, error] = std::from_chars(f[4].data(), f[4].data() + f[4].size(), expires_s);
    if (error != std::errc() || end != f[4].data() + f[4].size() || f[0].empty() || f[5].empty()) {
      return bad_input(fmt::format("{}, line {}: a cookie needs a domain, a name and a numeric expiry", source,
                                   line_number));
    }
    if (!proto::is_header_value(f[6]) || f[6].find(';') != std::string_view::npos || !proto::is_header_value(f[5]) ||
        f[5].find_first_of(";=") != std::string_view::npos) {
      return bad_input(fmt::format("{}, line {}: the cookie's name or value holds a control character, ';' or "
                                   "(in the name) '='",
                                   source, line_number));
    }
    std::string_view domain = f[0];
    if (domain.front() == '.') domain.remove_prefix(1);
    std::string lower(domain);
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    const bool subdomains = f[1] == "TRUE";
    if (expires_s == 0) expires_s = kSessionCookie;  // 0: a session cookie
    if (expires_s <= now_s) continue;                  // expired: skipped, as curl does
    jar.put(f[5], f[6], lower, !subdomains, f[2].empty() ? "/" : f[2], expires_s, f[3] == "TRUE", http_only, now_s);
  }
  return Ok{};
}

}  // namespace pacer::cookie
