// See sock_diag.h.
#include "evidence/sock_diag.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "core/unique_fd.h"

namespace pacer::evidence {

namespace {

// The kernel's filter (inet_diag_bc_run): each condition is an op and a second op
// holding the port; a true condition goes on to the next one (`yes`), a false one
// jumps past the program's end (`no`: the remaining length + 4), which rejects.
// Accepted: remote port == the URL's, low <= local port <= high.
struct PortFilter {
  nlattr attr;
  std::array<inet_diag_bc_op, 6> ops;
};

PortFilter port_filter(std::uint16_t remote_port, std::uint32_t low, std::uint32_t high) {
  PortFilter f{};
  f.attr.nla_type = INET_DIAG_REQ_BYTECODE;
  f.attr.nla_len = static_cast<std::uint16_t>(NLA_HDRLEN + sizeof f.ops);
  const auto condition = [&](std::size_t i, std::uint8_t code, std::uint32_t port) {
    const auto left = static_cast<std::uint16_t>(sizeof f.ops - i * sizeof(inet_diag_bc_op));  // from this op on
    f.ops[i] = {code, static_cast<std::uint8_t>(2 * sizeof(inet_diag_bc_op)), static_cast<std::uint16_t>(left + 4)};
    f.ops[i + 1] = {0, 0, static_cast<std::uint16_t>(port)};
  };
  condition(0, INET_DIAG_BC_D_EQ, remote_port);
  condition(2, INET_DIAG_BC_S_GE, low);
  condition(4, INET_DIAG_BC_S_LE, high);
  return f;
}

// The v2 request: one address family per dump.
struct FamilyDumpRequest {
  nlmsghdr header;
  inet_diag_req_v2 request;
  PortFilter filter;
};

// The first request format (TCPDIAG_GETSOCK), which the kernel still answers: it
// dumps both address families in one walk of the TCP hash table (the v2 request
// walks it once per family). The walk is most of a count's cost: 262,144 buckets
// here, 2 MB read per walk, about 2 ms when few sockets are open (issue 46).
struct BothFamiliesDumpRequest {
  nlmsghdr header;
  inet_diag_req request;
  PortFilter filter;
};

struct PortCount {
  int family = AF_INET;
  std::array<std::uint32_t, 4> local{}, remote{};  // network byte order, as the kernel sends them
  std::uint16_t remote_port = 0;
  std::uint64_t in_use = 0;
};

std::string family_address_text(const std::array<std::uint32_t, 4>& a, int family) {
  char text[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(family, a.data(), text, sizeof text) == nullptr) return "?";
  return text;
}

// Every state but LISTEN (TIME_WAIT holds its port too; a listener has no remote
// port, and leaving it out spares the walk of the listening hash). The remote port
// is also the request's own field: the kernel compares it before running the
// filter on each socket.
template <typename Request>
void fill(Request& req, std::uint16_t message_type, std::uint16_t remote_port, const PortFilter& filter) {
  req.header.nlmsg_len = sizeof req;
  req.header.nlmsg_type = message_type;
  req.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.request.idiag_states = ~(1u << TCP_LISTEN);
  req.request.id.idiag_dport = htons(remote_port);
  req.filter = filter;
}

void add_socket(const inet_diag_msg& m, std::vector<PortCount>& counts) {
  PortCount c;
  c.family = m.idiag_family;
  std::memcpy(c.local.data(), m.id.idiag_src, sizeof c.local);
  std::memcpy(c.remote.data(), m.id.idiag_dst, sizeof c.remote);
  c.remote_port = ntohs(m.id.idiag_dport);
  auto it = std::find_if(counts.begin(), counts.end(), [&](const PortCount& k) {
    return k.family == c.family && k.local == c.local && k.remote == c.remote && k.remote_port == c.remote_port;
  });
  if (it == counts.end()) {
    c.in_use = 1;
    counts.push_back(c);
  } else {
    ++it->in_use;
  }
}

// Sends one dump request and counts its answers; false on a refusal or a
// malformed answer. missing_is_empty: an ENOENT answer (a kernel without IPv6
// has no AF_INET6 handler) means no such sockets.
bool dump(int fd, const void* request, std::size_t length, bool missing_is_empty, std::vector<PortCount>& counts) {
  const std::uint16_t type = static_cast<const nlmsghdr*>(request)->nlmsg_type;  // the answers' too
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd, request, length, 0, reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel) < 0) return false;
  // The kernel fills a dump's message up to the largest read it has seen (32 KiB
  // at most): twice that, so that no message is cut.
  constexpr std::size_t kBufferBytes = 64 * 1024;
  const auto buffer = std::make_unique<std::uint32_t[]>(kBufferBytes / sizeof(std::uint32_t));  // aligned for nlmsghdr
  while (true) {
    const ssize_t got = ::recv(fd, buffer.get(), kBufferBytes, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    auto left = static_cast<unsigned int>(got);
    for (const auto* h = reinterpret_cast<const nlmsghdr*>(buffer.get()); NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type == NLMSG_DONE) return true;
      if (h->nlmsg_type == NLMSG_ERROR) {
        const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
        return missing_is_empty && h->nlmsg_len >= NLMSG_LENGTH(sizeof(nlmsgerr)) && e->error == -ENOENT;
      }
      if (h->nlmsg_type != type || h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) continue;
      add_socket(*static_cast<const inet_diag_msg*>(NLMSG_DATA(h)), counts);
    }
  }
}

// Both families in one walk, or (a kernel that refuses the first format) one per family.
bool dump_both_families(int fd, std::uint16_t remote_port, const PortFilter& filter, std::vector<PortCount>& counts) {
  BothFamiliesDumpRequest both{};
  fill(both, TCPDIAG_GETSOCK, remote_port, filter);
  if (dump(fd, &both, sizeof both, false, counts)) return true;
  counts.clear();
  for (const int family : {AF_INET, AF_INET6}) {
    FamilyDumpRequest one{};
    fill(one, SOCK_DIAG_BY_FAMILY, remote_port, filter);
    one.request.sdiag_family = static_cast<std::uint8_t>(family);
    one.request.sdiag_protocol = IPPROTO_TCP;
    if (!dump(fd, &one, sizeof one, family == AF_INET6, counts)) return false;
  }
  return true;
}

}  // namespace

bool count_ports_netlink(std::uint16_t remote_port, std::uint32_t low, std::uint32_t high, std::vector<PortUse>& out) {
  const UniqueFd fd(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (!fd.valid()) return false;
  const PortFilter filter =
      port_filter(remote_port, std::min<std::uint32_t>(low, 0xffff), std::min<std::uint32_t>(high, 0xffff));
  std::vector<PortCount> counts;  // a few (source address, destination) pairs: a linear search
  if (!dump_both_families(fd.get(), remote_port, filter, counts)) return false;
  // IPv4 first, as the two dumps of the v2 request gave them.
  std::stable_sort(counts.begin(), counts.end(), [](const PortCount& a, const PortCount& b) { return a.family < b.family; });
  std::vector<PortUse> found;
  for (const PortCount& c : counts) {
    const std::string remote = family_address_text(c.remote, c.family);
    found.push_back({family_address_text(c.local, c.family),
                     c.family == AF_INET6 ? fmt::format("[{}]:{}", remote, c.remote_port)
                                          : fmt::format("{}:{}", remote, c.remote_port),
                     c.in_use});
  }
  out.insert(out.end(), found.begin(), found.end());
  return true;
}

}  // namespace pacer::evidence
