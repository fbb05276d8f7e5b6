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

struct DumpRequest {
  nlmsghdr header;
  inet_diag_req_v2 request;
  PortFilter filter;
};

struct PortCount {
  std::array<std::uint32_t, 4> local{}, remote{};  // network byte order, as the kernel sends them
  std::uint16_t remote_port = 0;
  std::uint64_t in_use = 0;
};

std::string family_address_text(const std::array<std::uint32_t, 4>& a, int family) {
  char text[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(family, a.data(), text, sizeof text) == nullptr) return "?";
  return text;
}

// One family's dump into counts; false on a refusal or a malformed answer.
bool dump_family(int fd, int family, std::uint16_t remote_port, const PortFilter& filter,
                 std::vector<PortCount>& counts) {
  DumpRequest req{};
  req.header.nlmsg_len = sizeof req;
  req.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  req.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.request.sdiag_family = static_cast<std::uint8_t>(family);
  req.request.sdiag_protocol = IPPROTO_TCP;
  // Every state but LISTEN (TIME_WAIT holds its port too; a listener has no remote
  // port, and leaving it out spares the walk of the listening hash).
  req.request.idiag_states = ~(1u << TCP_LISTEN);
  // The remote port is also the request's own field: the kernel compares it before
  // running the filter on each socket.
  req.request.id.idiag_dport = htons(remote_port);
  req.filter = filter;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(fd, &req, sizeof req, 0, reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel) < 0) return false;
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
        // A kernel without IPv6 has no AF_INET6 handler: no such sockets, not a refusal.
        const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
        return family == AF_INET6 && h->nlmsg_len >= NLMSG_LENGTH(sizeof(nlmsgerr)) && e->error == -ENOENT;
      }
      if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) continue;
      const auto* m = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
      PortCount c;
      std::memcpy(c.local.data(), m->id.idiag_src, sizeof c.local);
      std::memcpy(c.remote.data(), m->id.idiag_dst, sizeof c.remote);
      c.remote_port = ntohs(m->id.idiag_dport);
      auto it = std::find_if(counts.begin(), counts.end(), [&](const PortCount& k) {
        return k.local == c.local && k.remote == c.remote && k.remote_port == c.remote_port;
      });
      if (it == counts.end()) {
        c.in_use = 1;
        counts.push_back(c);
      } else {
        ++it->in_use;
      }
    }
  }
}

}  // namespace

bool count_ports_netlink(std::uint16_t remote_port, std::uint32_t low, std::uint32_t high, std::vector<PortUse>& out) {
  const UniqueFd fd(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG));
  if (!fd.valid()) return false;
  const PortFilter filter =
      port_filter(remote_port, std::min<std::uint32_t>(low, 0xffff), std::min<std::uint32_t>(high, 0xffff));
  std::vector<PortUse> found;
  for (const int family : {AF_INET, AF_INET6}) {
    std::vector<PortCount> counts;  // a few (source address, destination) pairs: a linear search
    if (!dump_family(fd.get(), family, remote_port, filter, counts)) return false;
    for (const PortCount& c : counts) {
      const std::string remote = family_address_text(c.remote, family);
      found.push_back({family_address_text(c.local, family),
                       family == AF_INET6 ? fmt::format("[{}]:{}", remote, c.remote_port)
                                          : fmt::format("{}:{}", remote, c.remote_port),
                       c.in_use});
    }
  }
  out.insert(out.end(), found.begin(), found.end());
  return true;
}

}  // namespace pacer::evidence
