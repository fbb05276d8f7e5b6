// See bind_list.h.
#include "net/bind_list.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

namespace pacer::net {

namespace {

using Bytes = std::array<unsigned char, 16>;

struct Ip {
  int family = 0;
  Bytes bytes{};
  std::size_t size() const { return family == AF_INET ? 4 : 16; }
};

bool parse_ip(std::string_view text, Ip& ip) {
  std::string bare(text);
  if (bare.size() >= 2 && bare.front() == '[' && bare.back() == ']') bare = bare.substr(1, bare.size() - 2);
  if (inet_pton(AF_INET, bare.c_str(), ip.bytes.data()) == 1) {
    ip.family = AF_INET;
    return true;
  }
  if (inet_pton(AF_INET6, bare.c_str(), ip.bytes.data()) == 1) {
    ip.family = AF_INET6;
    return true;
  }
  return false;
}

Address to_address(const Ip& ip) {
  Address a;
  if (ip.family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&a.storage);
    in->sin_family = AF_INET;
    std::memcpy(&in->sin_addr, ip.bytes.data(), 4);
    a.length = sizeof(sockaddr_in);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
    in6->sin6_family = AF_INET6;
    std::memcpy(&in6->sin6_addr, ip.bytes.data(), 16);
    a.length = sizeof(sockaddr_in6);
  }
  return a;
}

int compare(const Ip& a, const Ip& b) { return std::memcmp(a.bytes.data(), b.bytes.data(), a.size()); }

void increment(Ip& ip) {
  for (std::size_t i = ip.size(); i-- > 0;) {
    if (++ip.bytes[i] != 0) return;
  }
}

Status add_entry(std::string_view entry, std::vector<Address>& out) {
  const std::size_t dash = entry.find('-');
  Ip first;
  if (dash == std::string_view::npos) {
    if (!parse_ip(entry, first)) return bad_input(fmt::format("'{}' is not an IP address", entry));
    out.push_back(to_address(first));
    return Ok{};
  }
  Ip last;
  if (!parse_ip(entry.substr(0, dash), first)) {
    return bad_input(fmt::format("'{}' is not an IP address (in the range '{}')", entry.substr(0, dash), entry));
  }
  if (!parse_ip(entry.substr(dash + 1), last)) {
    return bad_input(fmt::format("'{}' is not an IP address (in the range '{}')", entry.substr(dash + 1), entry));
  }
  if (first.family != last.family) return bad_input(fmt::format("the range '{}' mixes IPv4 and IPv6", entry));
  if (compare(first, last) > 0) return bad_input(fmt::format("the range '{}' runs backwards", entry));
  while (true) {
    if (out.size() >= kMaxBindAddresses) break;
    out.push_back(to_address(first));
    if (compare(first, last) == 0) return Ok{};
    increment(first);
  }
  return bad_input(fmt::format("more than {} addresses", kMaxBindAddresses));
}

}  // namespace

Result<std::vector<Address>> parse_bind_list(std::string_view text) {
  std::vector<Address> out;
  if (text.empty()) return bad_input("no address given");
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    std::string_view entry = text.substr(pos, end - pos);
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
    if (entry.empty()) return bad_input("an empty entry in the list");
    if (Status added = add_entry(entry, out); !added) return added.error();
    if (out.size() > kMaxBindAddresses) return bad_input(fmt::format("more than {} addresses", kMaxBindAddresses));
    pos = end + 1;
  }
  for (const Address& a : out) {
    if (a.family() != out.front().family()) {
      return bad_input("the list mixes IPv4 and IPv6 addresses (connections to one target use one family)");
    }
  }
  return out;
}

std::string address_literal(const Address& address) {
  std::array<char, INET6_ADDRSTRLEN> text{};
  const void* raw = address.family() == AF_INET
                        ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(&address.storage)->sin_addr)
                        : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(&address.storage)->sin6_addr);
  inet_ntop(address.family(), raw, text.data(), text.size());
  return text.data();
}

int bind_before_connect(int fd, const Address& local) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  if (::bind(fd, local.sockaddr_ptr(), local.length) != 0) return errno;
  return 0;
}

Unbindable first_unbindable(const std::vector<Address>& addresses) {
  for (const Address& a : addresses) {
    const int fd = ::socket(a.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return {&a, errno};
    const int err = bind_before_connect(fd, a);
    ::close(fd);
    if (err != 0) return {&a, err};
  }
  return {};
}

PortRange local_port_range() {
  PortRange range;
  std::FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
  if (f == nullptr) return range;
  if (std::fscanf(f, "%d %d", &range.first, &range.last) != 2) range = PortRange{};
  std::fclose(f);
  return range;
}

}  // namespace pacer::net
