// Durations, counts and URLs as users type them. Numbers are parsed as exact
// decimals (integer arithmetic, no floating point), so "1.5k" is exactly 1500 and
// "0.1s" exactly 100 ms. Pure; any thread.
#include "cli/units.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "proto/uri_reference.h"

namespace pacer::cli {
namespace {

using u128 = unsigned __int128;

constexpr int kMaxWholeDigits = 18;     // < 10^18 fits comfortably in 64 bits
constexpr int kMaxFractionDigits = 9;   // nanosecond resolution for seconds, exact for G

// "12.5" in "12.5ms": whole = 12, fraction = 5, fraction_digits = 1.
struct Decimal {
  std::uint64_t whole = 0;
  std::uint64_t fraction = 0;
  int fraction_digits = 0;
};

struct NumberAndSuffix {
  Decimal number;
  std::string_view suffix;
};

// Leading "digits[.digits]" (at least one digit in all) and whatever follows.
std::optional<NumberAndSuffix> split_number(std::string_view text) {
  NumberAndSuffix out;
  std::size_t i = 0;
  int whole_digits = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (++whole_digits > kMaxWholeDigits) return std::nullopt;
    out.number.whole = out.number.whole * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      if (++out.number.fraction_digits > kMaxFractionDigits) return std::nullopt;
      out.number.fraction = out.number.fraction * 10 + static_cast<std::uint64_t>(text[i] - '0');
    }
  }
  if (whole_digits + out.number.fraction_digits == 0) return std::nullopt;
  out.suffix = text.substr(i);
  return out;
}

struct Scaled {
  u128 value = 0;
  bool is_exact = true;  // false when the fraction left a remainder below one unit
};

Scaled scale(const Decimal& number, std::uint64_t unit) {
  u128 pow10 = 1;
  for (int i = 0; i < number.fraction_digits; ++i) pow10 *= 10;
  const u128 fraction_scaled = static_cast<u128>(number.fraction) * unit;
  return {static_cast<u128>(number.whole) * unit + fraction_scaled / pow10,
          fraction_scaled % pow10 == 0};
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<std::uint64_t> duration_unit_ns(std::string_view suffix) {
  struct Unit {
    std::string_view name;
    std::uint64_t ns;
  };
  static constexpr std::array<Unit, 6> kUnits{{{"", kNsPerS},
                                               {"us", kNsPerUs},
                                               {"ms", kNsPerMs},
                                               {"s", kNsPerS},
                                               {"m", 60 * kNsPerS},
                                               {"h", 3600 * kNsPerS}}};
  for (const Unit& unit : kUnits) {
    if (iequals(suffix, unit.name)) return unit.ns;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> count_multiplier(std::string_view suffix) {
  if (suffix.empty()) return 1;
  if (suffix == "k" || suffix == "K") return 1'000;
  if (suffix == "M") return 1'000'000;
  if (suffix == "G") return 1'000'000'000;
  return std::nullopt;
}

// Byte sizes are binary, as wrk's report prints them (1k = 1 KiB = 1024 bytes).
std::optional<std::uint64_t> byte_size_multiplier(std::string_view suffix) {
  struct Unit {
    std::string_view names[4];
    std::uint64_t bytes;
  };
  static constexpr std::array<Unit, 4> kUnits{{{{"", "b", "", ""}, 1},
                                               {{"k", "kb", "kib", ""}, std::uint64_t{1} << 10},
                                               {{"m", "mb", "mib", ""}, std::uint64_t{1} << 20},
                                               {{"g", "gb", "gib", ""}, std::uint64_t{1} << 30}}};
  for (const Unit& unit : kUnits) {
    for (std::string_view name : unit.names) {
      if (iequals(suffix, name) && (!name.empty() || suffix.empty())) return unit.bytes;
    }
  }
  return std::nullopt;
}

// RFC 3986 reg-name characters: unreserved, sub-delims and percent-encoding.
bool is_host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-._~%!$&'()*+,;=").find(c) != std::string_view::npos;
}

bool is_ipv6_literal(std::string_view host) {
  // A zone ("fe80::1%eth0") is kept in the host but not checked.
  const std::string address(host.substr(0, host.find('%')));
  in6_addr parsed{};
  return inet_pton(AF_INET6, address.c_str(), &parsed) == 1;
}

bool has_space_or_control(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte <= 0x20 || byte == 0x7f;
  });
}

struct Authority {
  std::string_view host;
  std::string_view port;  // empty when absent
};

Result<Authority> split_authority(std::string_view authority, std::string_view url) {
  Authority out;
  std::string_view after_host;
  if (!authority.empty() && authority[0] == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return bad_argument(fmt::format("URL '{}' has an unclosed '[' in its host", url));
    }
    out.host = authority.substr(1, close - 1);
    after_host = authority.substr(close + 1);
    if (!out.host.empty() && !is_ipv6_literal(out.host)) {
      return bad_argument(fmt::format("URL '{}' has an invalid IPv6 address '{}'", url, out.host));
    }
  } else {
    const std::size_t colon = authority.find(':');
    out.host = authority.substr(0, colon);
    after_host = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
    if (after_host.find(':', 1) != std::string_view::npos) {
      return bad_argument(
          fmt::format("URL '{}': put an IPv6 address in brackets, e.g. http://[::1]:8080/", url));
    }
    if (!std::all_of(out.host.begin(), out.host.end(), is_host_char)) {
      return bad_argument(fmt::format("URL '{}' has an invalid host '{}'", url, out.host));
    }
  }
  if (out.host.empty()) return bad_argument(fmt::format("URL '{}' has no host", url));
  if (!after_host.empty()) {
    if (after_host[0] != ':') {
      return bad_argument(fmt::format("URL '{}' has unexpected text '{}' after the host", url,
                                      after_host));
    }
    out.port = after_host.substr(1);
  }
  return out;
}

}  // namespace

Result<TimeNs> parse_duration(std::string_view text, std::string_view flag) {
  const auto split = split_number(text);
  const auto unit_ns = split ? duration_unit_ns(split->suffix) : std::nullopt;
  if (!unit_ns) {
    return bad_argument(fmt::format(
        "{}: '{}' is not a duration (expected e.g. 2s, 250ms, 1.5m, 1h, 100us; "
        "a bare number is seconds)",
        flag, text));
  }
  const Scaled ns = scale(split->number, *unit_ns);
  if (ns.value > static_cast<u128>(std::numeric_limits<TimeNs>::max())) {
    return bad_argument(fmt::format("{}: duration '{}' is too long", flag, text));
  }
  return static_cast<TimeNs>(ns.value);
}

Result<std::uint64_t> parse_count(std::string_view text, std::string_view flag) {
  const auto split = split_number(text);
  const auto multiplier = split ? count_multiplier(split->suffix) : std::nullopt;
  if (!multiplier) {
    const bool is_milli_or_mega = split && split->suffix == "m";
    return bad_argument(fmt::format("{}: '{}' is not a count (expected e.g. 100, 10k, 1.5M, 1G{})",
                                    flag, text,
                                    is_milli_or_mega ? "; write M for million" : ""));
  }
  const Scaled count = scale(split->number, *multiplier);
  if (!count.is_exact) {
    return bad_argument(fmt::format("{}: '{}' is not a whole number", flag, text));
  }
  if (count.value > std::numeric_limits<std::uint64_t>::max()) {
    return bad_argument(fmt::format("{}: '{}' is too large", flag, text));
  }
  return static_cast<std::uint64_t>(count.value);
}

Result<std::uint64_t> parse_byte_size(std::string_view text, std::string_view flag) {
  const auto split = split_number(text);
  const auto multiplier = split ? byte_size_multiplier(split->suffix) : std::nullopt;
  if (!multiplier) {
    return bad_argument(fmt::format("{}: '{}' is not a size (expected e.g. 4096, 64k, 16M, 1G)", flag, text));
  }
  const Scaled bytes = scale(split->number, *multiplier);
  if (!bytes.is_exact) return bad_argument(fmt::format("{}: '{}' is not a whole number of bytes", flag, text));
  if (bytes.value > std::numeric_limits<std::uint64_t>::max()) {
    return bad_argument(fmt::format("{}: '{}' is too large", flag, text));
  }
  return static_cast<std::uint64_t>(bytes.value);
}

std::optional<std::uint16_t> parse_port_number(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  std::uint32_t port = 0;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    port = port * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (port > std::numeric_limits<std::uint16_t>::max()) return std::nullopt;
  return static_cast<std::uint16_t>(port);
}

Result<Target> parse_url(std::string_view text) {
  if (text.size() > proto::kMaxUrlBytes) {
    return bad_argument(fmt::format("URL '{}...' is {} bytes, more than the URL cap ({} bytes)",
                                    text.substr(0, 64), text.size(), proto::kMaxUrlBytes));
  }
  const std::size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) {
    return bad_argument(
        fmt::format("URL '{}' has no scheme (expected http:// or https://)", text));
  }
  const std::string_view scheme = text.substr(0, scheme_end);
  Target target;
  target.url = std::string(text);
  if (iequals(scheme, "http")) {
    target.scheme = "http";
  } else if (iequals(scheme, "https")) {
    target.scheme = "https";
  } else {
    return bad_argument(fmt::format(
        "unsupported scheme '{}' in URL '{}' (expected http or https)", scheme, text));
  }
  if (has_space_or_control(text)) {
    return bad_argument(
        fmt::format("URL '{}' contains a space or control character; percent-encode it", text));
  }

  std::string_view rest = text.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find('#'));  // the fragment never goes on the wire
  const std::size_t authority_end = rest.find_first_of("/?");
  const std::string_view authority = rest.substr(0, authority_end);
  if (authority.find('@') != std::string_view::npos) {
    return bad_argument(fmt::format(
        "URL '{}' contains user info, which pacer does not send; use -H 'Authorization: ...'",
        text));
  }
  auto parts = split_authority(authority, text);
  if (!parts) return parts.error();

  target.host = std::string(parts->host);
  target.has_explicit_port = !parts->port.empty();
  if (target.has_explicit_port) {
    const auto port = parse_port_number(parts->port);
    if (!port || *port == 0) {
      return bad_argument(fmt::format("URL '{}' has an invalid port '{}' (expected 1 to 65535)",
                                      text, parts->port));
    }
    target.port = *port;
  } else {
    target.port = target.is_tls() ? 443 : 80;
  }

  const std::string_view path = authority_end == std::string_view::npos
                                    ? std::string_view()
                                    : rest.substr(authority_end);
  target.path = path.empty() || path[0] == '?' ? "/" + std::string(path) : std::string(path);
  return target;
}

}  // namespace pacer::cli
