// See no_proxy.h.
#include "proxy/no_proxy.h"

#include <arpa/inet.h>
#include <strings.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace pacer::proxy {

namespace {

struct Ip {
  int family = 0;
  std::array<std::uint8_t, 16> bytes{};
};

std::string_view strip(std::string_view s, char front, char back) {
  if (!s.empty() && s.front() == front) s.remove_prefix(1);
  if (!s.empty() && s.back() == back) s.remove_suffix(1);
  return s;
}

std::optional<Ip> parse_ip(std::string_view text) {
  const std::string bare(strip(text, '[', ']'));
  Ip ip;
  if (inet_pton(AF_INET, bare.c_str(), ip.bytes.data()) == 1) {
    ip.family = AF_INET;
    return ip;
  }
  if (inet_pton(AF_INET6, bare.c_str(), ip.bytes.data()) == 1) {
    ip.family = AF_INET6;
    return ip;
  }
  return std::nullopt;
}

bool prefix_equal(const Ip& a, const Ip& b, unsigned bits) {
  for (unsigned i = 0; i < 16 && bits > 0; ++i) {
    const unsigned take = bits >= 8 ? 8 : bits;
    const auto mask = static_cast<std::uint8_t>(0xFF00U >> take);
    if ((a.bytes[i] & mask) != (b.bytes[i] & mask)) return false;
    bits -= take;
  }
  return true;
}

bool ip_entry_matches(std::string_view entry, const Ip& host) {
  std::string_view address = entry;
  unsigned bits = host.family == AF_INET ? 32 : 128;
  if (const std::size_t slash = entry.find('/'); slash != std::string_view::npos) {
    address = entry.substr(0, slash);
    const std::string_view digits = entry.substr(slash + 1);
    if (digits.empty() || digits.size() > 3) return false;
    unsigned value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > bits) return false;
    bits = value;
  }
  const std::optional<Ip> ip = parse_ip(address);
  return ip && ip->family == host.family && prefix_equal(*ip, host, bits);
}

bool name_entry_matches(std::string_view entry, std::string_view host) {
  if (!entry.empty() && entry.front() == '.') entry.remove_prefix(1);
  if (!entry.empty() && entry.back() == '.') entry.remove_suffix(1);
  if (entry.empty() || entry.size() > host.size()) return false;
  const std::string_view tail = host.substr(host.size() - entry.size());
  if (strncasecmp(tail.data(), entry.data(), entry.size()) != 0) return false;
  return host.size() == entry.size() || host[host.size() - entry.size() - 1] == '.';
}

// Why `entry` can match no host, or nullopt.
std::optional<std::string> entry_flaw(std::string_view entry) {
  const std::string quoted = "'" + std::string(entry) + "'";
  const std::size_t slash = entry.find('/');
  const std::string_view address = strip(entry.substr(0, slash), '[', ']');
  const std::optional<Ip> ip = parse_ip(address);
  if (slash != std::string_view::npos) {
    if (!ip) return quoted + ": only an IP address takes /BITS (a CIDR range such as 10.0.0.0/8)";
    const std::string_view digits = entry.substr(slash + 1);
    const unsigned most = ip->family == AF_INET ? 32 : 128;
    const bool is_number = !digits.empty() && digits.size() <= 3 &&
                           digits.find_first_not_of("0123456789") == std::string_view::npos;
    if (!is_number || static_cast<unsigned>(std::stoul(std::string(digits))) > most) {
      return quoted + ": the prefix length must be 0 to " + std::to_string(most) + " for " +
             (ip->family == AF_INET ? "IPv4" : "IPv6");
    }
    return std::nullopt;
  }
  if (!ip && entry.find(':') != std::string_view::npos) {
    return quoted + " has a port (or is an IPv6 address with one): entries are host names, domains and "
                    "addresses without ports, as curl reads them";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> no_proxy_flaw(std::string_view list) {
  std::size_t pos = 0;
  while (pos < list.size()) {
    const std::size_t end = std::min(list.find_first_of(", \t", pos), list.size());
    const std::string_view entry = list.substr(pos, end - pos);
    pos = end + 1;
    if (entry.empty() || entry == "*") continue;
    if (auto flaw = entry_flaw(entry)) return flaw;
  }
  return std::nullopt;
}

bool no_proxy_matches(std::string_view list, std::string_view host) {
  host = strip(host, '[', ']');
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  const std::optional<Ip> host_ip = parse_ip(host);
  std::size_t pos = 0;
  while (pos < list.size()) {
    const std::size_t end = std::min(list.find_first_of(", \t", pos), list.size());
    const std::string_view entry = list.substr(pos, end - pos);
    pos = end + 1;
    if (entry.empty()) continue;
    if (entry == "*") return true;
    if (host_ip ? ip_entry_matches(strip(entry, '[', ']'), *host_ip) : name_entry_matches(entry, host)) return true;
  }
  return false;
}

}  // namespace pacer::proxy
