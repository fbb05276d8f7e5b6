// The evidence's port count (evidence/watch.h) from the kernel's sock_diag
// netlink interface (NETLINK_SOCK_DIAG, the one `ss` uses): one dump of the TCP
// sockets of both address families (the first request format, TCPDIAG_GETSOCK:
// one walk of the kernel's hash table where the v2 request makes one per family;
// the v2 request where it is refused), every state, filtered in the kernel by a bytecode
// program (remote port == the URL's, local port in the ephemeral range), so only
// the matching sockets cross into pacer, as binary records. /proc/net/tcp{,6}
// (evidence/proc.h count_ports) gives the same counts but formats every socket of
// the namespace as text each time: at 20,000 sockets a few MB of text and a
// measurable share of a -c10000 run's CPU. Any thread; no state.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "evidence/samples.h"

namespace pacer::evidence {

// Sockets of this network namespace (IPv4 and IPv6) whose remote port is
// remote_port and whose local port lies in [low, high], counted per (local
// address, remote address:port) in count_ports's form, added to `out`. False
// when netlink was refused (no socket, an error answer): the caller reads /proc.
bool count_ports_netlink(std::uint16_t remote_port, std::uint32_t low, std::uint32_t high, std::vector<PortUse>& out);

}  // namespace pacer::evidence
