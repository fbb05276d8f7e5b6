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

}  // namespace

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
