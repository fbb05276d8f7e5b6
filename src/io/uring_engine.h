// The io_uring engine. One ring per worker, created single-issuer with deferred
// task work (completions are produced only when the worker enters the kernel,
// in the one io_uring_enter that also submits and waits).
//
//  - Receives (kStream): one multishot IORING_OP_RECVMSG per connection into a
//    ring of provided buffers; each completion carries the socket's
//    SO_TIMESTAMPNS control message, so the kernel receive stamp is the same one
//    epoll's recvmsg reads. A completion queues its buffer on the channel (a FIFO
//    linked through the engine's per-buffer arrays, no allocation); read() hands
//    the buffers out in order and gives each back to the ring on the next read()
//    or wait(). A multishot receive that ran out of buffers is armed again once
//    buffers come back.
//  - Sends (kStream): write() queues one IORING_OP_SEND (MSG_WAITALL) of the
//    session's pending bytes (which stay put until consumed) and returns
//    kWantWrite; every send queued in a wake-up leaves in the next io_uring_enter,
//    and its completion (a kWritable event) tells the next write() how many bytes
//    went.
//  - Connects: connect(2) itself, one socket at a time (a batch of
//    IORING_OP_CONNECT sends its SYNs in one burst that overflows a server's
//    accept queue), then a one-shot POLLOUT poll for the result (SO_ERROR); the
//    receive (or poll) is armed on success.
//  - Registered files: each socket gets a slot in the ring's file table (an
//    IORING_OP_FILES_UPDATE queued with the socket's first operation, cleared at
//    close), so no operation looks its file up; without a table (the fd limit is
//    below it), plain fds.
//  - kReadiness channels (TLS, QUIC's datagrams): a multishot, edge-triggered
//    IORING_OP_POLL_ADD reports readiness like epoll; the owner reads and writes
//    the socket itself (OpenSSL's BIO with its receive stamps; recvmmsg/sendmmsg).
//  - Close: the operations in flight are cancelled by their user_data (never by
//    fd number, which the next socket may reuse at once), the fd is closed, and
//    the channel's generation moves on so late completions are dropped.
//  - Waits: one io_uring_enter submits, waits until an absolute deadline
//    (IORING_ENTER_ABS_TIMER; a relative timeout on older kernels) and runs the
//    deferred task work. It waits for one completion more than the small sends it
//    submits (io/send_tally.h; at most 16), which complete inside it on loopback:
//    one enter a wake-up, not one that returns with the sends' completions and one
//    that sleeps.
// See io/engine.h for the contract.
#pragma once

#include <liburing.h>
#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "io/engine.h"
#include "io/send_tally.h"

namespace pacer::io {

class UringEngine final : public Engine {
 public:
  // Buffer geometry: kBufferBytes each (header, stamp and payload), a power of
  // two count between kMinBuffers and kMaxBuffers, about one per connection.
  // Every buffer is resident (the ring hands them out in turn); past kMaxBuffers
  // connections, receives that find none are armed again once some come back
  // (at -c10000: 1 MB instead of 4, and no more CPU per request).
  static constexpr std::uint32_t kBufferBytes = 4096;
  static constexpr std::uint32_t kMinBuffers = 64;
  static constexpr std::uint32_t kMaxBuffers = 256;
  static constexpr std::size_t kReadBufferBytes = 64 * 1024;  // TLS reads (kReadiness)
  static constexpr int kBufferGroup = 0;  // the provided buffers' group id

  // The ring is created here (any thread) and enabled by the first wait() on the
  // worker's thread (single issuer).
  // readiness_reads: kReadiness channels will read (TLS): a 64 KiB buffer for them.
  static Result<std::unique_ptr<Engine>> create(int channels, bool readiness_reads);
  // Why this kernel or sandbox cannot run the engine ("" when it can): creates a
  // small ring and checks the operations used. PACER_IO_URING_DISABLE=1 says
  // it cannot (tests simulate a kernel without io_uring).
  static std::string unavailable_reason();

  UringEngine(const UringEngine&) = delete;
  UringEngine& operator=(const UringEngine&) = delete;
  ~UringEngine() override;

  EngineKind kind() const override { return EngineKind::kUring; }
  bool attach(Channel& channel, int fd, Mode mode, bool connected) override;
  int connect(Channel& channel, const sockaddr* address, socklen_t length) override;
  Received read(Channel& channel, net::TlsStream& tls) override;
  net::IoResult write(Channel& channel, net::TlsStream& tls, std::span<const char> bytes) override;
  void close(Channel& channel) override;
  void submit() override;
  int wait(TimeNs timeout_ns, Events& events) override;
  void finish() override;

 private:
  // kOpIgnore: operations whose completion says nothing (cancels, file table updates).
  enum Op : std::uint64_t { kOpConnect = 1, kOpRecv = 2, kOpSend = 3, kOpPoll = 4, kOpIgnore = 5 };
  static constexpr std::uint16_t kNoBuffer = 0xffff;

  UringEngine() = default;
  Status setup(int channels, bool readiness_reads);
  void enable();
  io_uring_sqe* next_sqe();
  static std::uint64_t tag(const Channel& channel, Op op);
  void arm(Channel& channel);  // the receive (kStream) or poll (kReadiness) of a connected socket
  void cancel(const Channel& channel, Op op);
  // Points sqe at the channel's registered file, when it has one.
  static void use_file(io_uring_sqe* sqe, const Channel& channel);
  void set_slot(std::int32_t slot, int fd);  // queues the file table update
  void give_back(std::uint16_t buffer);
  void give_back_last();
  void rearm_starved();
  // Submits and waits for min_complete completions with an absolute deadline; -errno.
  int enter_until(TimeNs deadline_ns, std::uint32_t min_complete);
  void complete(const io_uring_cqe& cqe, Events& events);
  void received(Channel& channel, const io_uring_cqe& cqe, Events& events);
  char* buffer_at(std::uint16_t id) const { return buffers_ + std::size_t{id} * kBufferBytes; }

  io_uring ring_{};
  bool ring_ready_ = false;     // queue_init succeeded (the destructor exits it)
  bool enabled_ = false;        // enabled on the worker's thread
  io_uring_buf_ring* buf_ring_ = nullptr;
  std::size_t buf_ring_bytes_ = 0;
  char* buffers_ = nullptr;     // buffer_count_ * kBufferBytes (mmap)
  std::uint32_t buffer_count_ = 0;
  // Per provided buffer: the next one on its channel's FIFO, its payload's offset,
  // length and stamp.
  std::vector<std::uint16_t> next_;
  std::vector<std::uint16_t> offset_;
  std::vector<std::uint16_t> length_;
  std::vector<TimeNs> stamp_;
  std::uint16_t last_read_ = kNoBuffer;  // handed out by the last read(), given back at the next
  msghdr recv_msg_{};           // the multishot receive's template: no name, room for one stamp
  std::vector<int> slot_fds_;             // the registered file table's fds, as the updates read them
  std::vector<std::int32_t> free_slots_;  // empty when there is no table
  std::vector<std::pair<Channel*, std::uint16_t>> starved_;  // receives ended for want of buffers (channel, generation)
  TimeNs real_minus_mono_ = 0;  // this wake-up's CLOCK_REALTIME - CLOCK_MONOTONIC (stamps)
  TimeNs wake_mono_ = 0;
  bool abs_timer_ = true;       // the kernel takes IORING_ENTER_ABS_TIMER (until it says EINVAL)
  SendTally sends_;             // how many completions the next wait waits for
  std::unique_ptr<char[]> read_buffer_;  // TLS reads (null without TLS)
};

}  // namespace pacer::io
