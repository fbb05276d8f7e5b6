// The datagram path of a QUIC connection: one connected UDP socket per
// connection, packets written by ngtcp2 into a PacketBatch and sent with one
// sendmmsg (consecutive packets of one size go out as one UDP GSO train where the
// kernel allows it), datagrams read with recvmmsg into a per-worker
// DatagramReader together with each one's kernel receive stamp (SO_TIMESTAMPNS),
// so a response ends when the datagram that completed it arrived.
// No allocation after construction. Thread: the owning worker's.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/clock.h"
#include "net/address.h"

namespace pacer::net {

// The largest UDP payload pacer sends (ngtcp2's default, fits a 1500-byte MTU)
// and accepts (its transport parameter max_udp_payload_size).
inline constexpr std::size_t kMaxTxPayload = 1452;
inline constexpr std::size_t kMaxRxPayload = 1500;

// Packets waiting to be sent, in order. Owned by one connection.
class PacketBatch {
 public:
  static constexpr std::size_t kMaxPackets = 16;
  PacketBatch() : bytes_(std::make_unique<std::uint8_t[]>(kMaxPackets * kMaxTxPayload)) {}

  bool empty() const { return first_ == count_; }
  bool full() const { return count_ == kMaxPackets; }
  void clear() { first_ = count_ = 0; }
  // Where the next packet goes (kMaxTxPayload bytes of room); commit() its size.
  std::uint8_t* slot() { return bytes_.get() + count_ * kMaxTxPayload; }
  void commit(std::size_t length) { length_[count_++] = static_cast<std::uint16_t>(length); }
  std::size_t first() const { return first_; }
  std::size_t count() const { return count_; }
  const std::uint8_t* packet(std::size_t i) const { return bytes_.get() + i * kMaxTxPayload; }
  std::size_t length(std::size_t i) const { return length_[i]; }
  // The unsent packets' bytes.
  std::size_t pending_bytes() const {
    std::size_t n = 0;
    for (std::size_t i = first_; i < count_; ++i) n += length_[i];
    return n;
  }
  void sent(std::size_t packets) {
    first_ += packets;
    if (first_ == count_) clear();
  }

 private:
  std::unique_ptr<std::uint8_t[]> bytes_;
  std::array<std::uint16_t, kMaxPackets> length_{};
  std::size_t first_ = 0;  // the next packet to send
  std::size_t count_ = 0;
};

// Opens a non-blocking UDP socket connected to `remote` (so the kernel reports
// ICMP unreachable as ECONNREFUSED), with receive stamps on; fills `local` with
// its bound address. Returns the fd, or -1 with errno set.
// source: --bind's address for this socket (port 0), or null.
int open_udp_socket(const Address& remote, Address& local, const Address* source = nullptr);

enum class SendStatus : std::uint8_t { kAllSent, kBlocked, kError };

// Sends the batch's unsent packets; consecutive packets of the same size (the
// last of a run may be shorter) go as one GSO train while `gso` holds. A kernel
// that refuses GSO turns `gso` off and the packets go one per message.
// kBlocked: the socket buffer is full (the rest waits for EPOLLOUT); errno on kError.
SendStatus send_packets(int fd, PacketBatch& batch, bool& gso);

// recvmmsg into fixed slots, with each datagram's receive stamp.
class DatagramReader {
 public:
  static constexpr std::size_t kSlots = 32;
  DatagramReader();

  // Reads up to kSlots datagrams. Returns how many (0: none waiting), or -errno.
  int receive(int fd);
  const std::uint8_t* data(std::size_t i) const { return bytes_.get() + i * kMaxRxPayload; }
  std::size_t length(std::size_t i) const { return messages_[i].msg_len; }
  bool truncated(std::size_t i) const { return (messages_[i].msg_hdr.msg_flags & MSG_TRUNC) != 0; }
  TimeNs stamp(std::size_t i) const;  // monotonic; 0 when the kernel gave none

 private:
  static constexpr std::size_t kControlBytes = CMSG_SPACE(sizeof(struct timespec));
  std::unique_ptr<std::uint8_t[]> bytes_;
  std::array<mmsghdr, kSlots> messages_{};
  std::array<iovec, kSlots> iov_{};
  std::array<std::array<unsigned char, kControlBytes>, kSlots> control_{};
};

}  // namespace pacer::net
