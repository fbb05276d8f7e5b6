// UDP sockets, batched sends (sendmmsg, GSO) and receives (recvmmsg). See udp_io.h.
#include "net/udp_io.h"

#include <netinet/in.h>
#include <netinet/udp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/receive_stamp.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

namespace pacer::net {

namespace {

// One sendmmsg message: a run of packets of one size (the last may be shorter).
struct Train {
  std::size_t first = 0;
  std::size_t count = 0;
  std::size_t segment = 0;
};

// Consecutive runs starting at `from`; one packet per train without GSO.
std::size_t plan_trains(const PacketBatch& batch, bool gso, std::array<Train, PacketBatch::kMaxPackets>& trains) {
  std::size_t n = 0;
  for (std::size_t i = batch.first(); i < batch.count();) {
    Train t{i, 1, batch.length(i)};
    ++i;
    while (gso && i < batch.count() && batch.length(i) <= t.segment && t.count < 64) {
      const bool shorter = batch.length(i) < t.segment;
      ++t.count;
      ++i;
      if (shorter) break;  // only the last of a train may be shorter
    }
    trains[n++] = t;
  }
  return n;
}

}  // namespace

int open_udp_socket(const Address& remote, Address& local, const Address* source) {
  const int fd = ::socket(remote.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
  if (fd < 0) return -1;
  if (source != nullptr && ::bind(fd, source->sockaddr_ptr(), source->length) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  // Room for a burst of a few flow-control windows (the kernel caps it at rmem_max).
  const int buffer = 4 * 1024 * 1024;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  enable_receive_stamps(fd);
  if (::connect(fd, remote.sockaddr_ptr(), remote.length) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  local.length = sizeof local.storage;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local.storage), &local.length) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

SendStatus send_packets(int fd, PacketBatch& batch, bool& gso) {
  while (!batch.empty()) {
    std::array<Train, PacketBatch::kMaxPackets> trains{};
    const std::size_t n = plan_trains(batch, gso, trains);
    std::array<mmsghdr, PacketBatch::kMaxPackets> messages{};
    std::array<iovec, PacketBatch::kMaxPackets> iov{};
    alignas(cmsghdr) std::array<std::array<unsigned char, CMSG_SPACE(sizeof(std::uint16_t))>, PacketBatch::kMaxPackets>
        control{};
    for (std::size_t i = 0; i < n; ++i) {
      const Train& t = trains[i];
      // One iovec per packet: the kernel gathers them and cuts the train into
      // `segment`-sized datagrams again (the packets sit kMaxTxPayload apart).
      for (std::size_t k = 0; k < t.count; ++k) {
        iov[t.first + k - batch.first()] =
            iovec{const_cast<std::uint8_t*>(batch.packet(t.first + k)), batch.length(t.first + k)};
      }
      msghdr& m = messages[i].msg_hdr;
      m.msg_iov = &iov[t.first - batch.first()];
      m.msg_iovlen = t.count;
      if (t.count > 1) {
        m.msg_control = control[i].data();
        m.msg_controllen = control[i].size();
        cmsghdr* c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_UDP;
        c->cmsg_type = UDP_SEGMENT;
        c->cmsg_len = CMSG_LEN(sizeof(std::uint16_t));
        const auto segment = static_cast<std::uint16_t>(t.segment);
        std::memcpy(CMSG_DATA(c), &segment, sizeof segment);
      }
    }
    int sent = 0;
    do {
      sent = ::sendmmsg(fd, messages.data(), static_cast<unsigned>(n), MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return SendStatus::kBlocked;
      if (gso && (errno == EIO || errno == EINVAL || errno == ENOPROTOOPT)) {
        gso = false;  // no GSO here: one packet per message from now on
        continue;
      }
      return SendStatus::kError;
    }
    std::size_t packets = 0;
    for (int i = 0; i < sent; ++i) packets += trains[static_cast<std::size_t>(i)].count;
    batch.sent(packets);
  }
  return SendStatus::kAllSent;
}

DatagramReader::DatagramReader() : bytes_(std::make_unique<std::uint8_t[]>(kSlots * kMaxRxPayload)) {
  for (std::size_t i = 0; i < kSlots; ++i) {
    iov_[i] = iovec{bytes_.get() + i * kMaxRxPayload, kMaxRxPayload};
  }
}

int DatagramReader::receive(int fd) {
  for (std::size_t i = 0; i < kSlots; ++i) {
    msghdr& m = messages_[i].msg_hdr;
    m = msghdr{};
    m.msg_iov = &iov_[i];
    m.msg_iovlen = 1;
    m.msg_control = control_[i].data();
    m.msg_controllen = control_[i].size();
    messages_[i].msg_len = 0;
  }
  int got = 0;
  do {
    got = ::recvmmsg(fd, messages_.data(), kSlots, MSG_DONTWAIT, nullptr);
  } while (got < 0 && errno == EINTR);
  if (got >= 0) return got;
  if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
  return -errno;
}

TimeNs DatagramReader::stamp(std::size_t i) const { return message_stamp(messages_[i].msg_hdr); }

}  // namespace pacer::net
