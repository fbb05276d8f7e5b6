// --bind ADDRESSES: the local addresses connections leave from. One address, a
// comma-separated list, or a range FIRST-LAST of one family (127.0.0.2-127.0.0.9,
// fd00::1-fd00::8), mixed freely ("10.0.0.1,10.0.0.5-10.0.0.7"). Each becomes an
// address with port 0 (the kernel picks the port at connect: see
// bind_before_connect). Pure but for bind_before_connect; any thread.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "net/address.h"

namespace pacer::net {

inline constexpr std::size_t kMaxBindAddresses = 65536;

// Errors: kBadInput naming the entry at fault (not an IP literal, a range whose
// ends differ in family or run backwards, more than kMaxBindAddresses, mixed families).
Result<std::vector<Address>> parse_bind_list(std::string_view text);

// The address as an IP literal without a port ("127.0.0.2", "fd00::1").
std::string address_literal(const Address& address);

// Binds fd to `local` (port 0) before its connect. IP_BIND_ADDRESS_NO_PORT defers
// the port to connect(), so each (source, destination) pair has the whole
// ephemeral range rather than each source address alone. 0 or errno.
int bind_before_connect(int fd, const Address& local);

// The first of `addresses` this host cannot bind (a test socket bound to ADDR:0
// with the port deferred, so no port is taken), with its errno; {nullptr, 0} when
// all can. EADDRNOTAVAIL: the address is on none of this host's interfaces.
struct Unbindable {
  const Address* address = nullptr;
  int err = 0;
};
Unbindable first_unbindable(const std::vector<Address>& addresses);

// The ephemeral port range (/proc/sys/net/ipv4/ip_local_port_range), for the
// message when ports run out; {0, 0} when unreadable.
struct PortRange {
  int first = 0;
  int last = 0;
  int count() const { return last >= first && first > 0 ? last - first + 1 : 0; }
};
PortRange local_port_range();

}  // namespace pacer::net
