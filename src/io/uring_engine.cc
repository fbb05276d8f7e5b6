// The io_uring engine's operations (its set-up: uring_setup.cc). See uring_engine.h.
#include "io/uring_engine.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "net/receive_stamp.h"
#include "net/socket.h"
#include "net/transport.h"

namespace pacer::io {

namespace {

// Channel::io_flags.
constexpr std::uint8_t kArmed = 1;       // a multishot receive or poll is active
constexpr std::uint8_t kSending = 2;     // a send is in flight
constexpr std::uint8_t kSent = 4;        // a send finished: tx_result waits for write()
constexpr std::uint8_t kEof = 8;         // the receives ended with the peer's close
constexpr std::uint8_t kRxError = 16;    // the receives ended with rx_error
constexpr std::uint8_t kConnecting = 32; // a connect is in flight
constexpr std::uint8_t kWriteWaiting = 64;  // write() met kSending: bytes wait for that send's completion

constexpr int kOpShift = 48;
constexpr int kGenerationShift = 51;
constexpr std::uint64_t kPointerMask = (std::uint64_t{1} << kOpShift) - 1;
constexpr std::uint16_t kGenerationMask = 0x1fff;

TimeNs realtime_now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<TimeNs>(t.tv_sec) * kNsPerS + t.tv_nsec;
}

void clear(Channel& channel, std::uint8_t bits) { channel.io_flags = static_cast<std::uint8_t>(channel.io_flags & ~bits); }

}  // namespace

// ---- submissions -----------------------------------------------------------

void UringEngine::enable() {
  // Single issuer: the worker's thread, which makes the first submission, enables the ring.
  io_uring_register(ring_.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0);
  io_uring_register_ring_fd(&ring_);  // io_uring_enter without an fd lookup (best effort)
  enabled_ = true;
}

io_uring_sqe* UringEngine::next_sqe() {
  if (!enabled_) enable();
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {  // the submission queue is full: hand it over and go on
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

std::uint64_t UringEngine::tag(const Channel& channel, Op op) {
  return (reinterpret_cast<std::uintptr_t>(&channel) & kPointerMask) | (std::uint64_t{op} << kOpShift) |
         (std::uint64_t{static_cast<std::uint16_t>(channel.generation & kGenerationMask)} << kGenerationShift);
}

void UringEngine::arm(Channel& channel) {
  io_uring_sqe* sqe = next_sqe();
  if (channel.mode == Mode::kStream) {
    io_uring_prep_recvmsg_multishot(sqe, channel.fd, &recv_msg_, 0);
    use_file(sqe, channel);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = kBufferGroup;
    io_uring_sqe_set_data64(sqe, tag(channel, kOpRecv));
  } else {
    // Edge-triggered (no IORING_POLL_ADD_LEVEL), like the epoll engine's registration.
    io_uring_prep_poll_multishot(sqe, channel.fd, POLLIN | POLLOUT | POLLRDHUP);
    use_file(sqe, channel);
    io_uring_sqe_set_data64(sqe, tag(channel, kOpPoll));
  }
  channel.io_flags |= kArmed;
}

void UringEngine::cancel(const Channel& channel, Op op) {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_cancel64(sqe, tag(channel, op), 0);
  io_uring_sqe_set_data64(sqe, std::uint64_t{kOpIgnore} << kOpShift);
}

void UringEngine::use_file(io_uring_sqe* sqe, const Channel& channel) {
  if (channel.slot < 0) return;
  sqe->fd = channel.slot;
  sqe->flags |= IOSQE_FIXED_FILE;
}

void UringEngine::set_slot(std::int32_t slot, int fd) {
  // The update reads slot_fds_ when it is submitted; it runs before the
  // operations queued after it, which name the slot.
  slot_fds_[static_cast<std::size_t>(slot)] = fd;
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_files_update(sqe, &slot_fds_[static_cast<std::size_t>(slot)], 1, slot);
  io_uring_sqe_set_data64(sqe, std::uint64_t{kOpIgnore} << kOpShift);
}

void UringEngine::submit() {
  if (enabled_) io_uring_submit(&ring_);
}

void UringEngine::finish() {
  if (!enabled_) return;
  // A few passes: the cancellations' completions may come as task work that the
  // next enter runs. What they carry (buffers, closed channels' ends) is dropped.
  constexpr int kMaxPasses = 8;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    const bool submitted = io_uring_sq_ready(&ring_) > 0;
    if (io_uring_submit_and_get_events(&ring_) < 0) return;
    const unsigned ready = io_uring_cq_ready(&ring_);
    if (ready == 0 && !submitted) return;
    io_uring_cq_advance(&ring_, ready);
  }
}

// ---- the channel operations ---------------------------------------------------

bool UringEngine::attach(Channel& channel, int fd, Mode mode, bool connected) {
  channel.fd = fd;
  channel.mode = mode;
  channel.io_flags = 0;
  channel.rx_head = channel.rx_tail = kNoBuffer;
  channel.rx_error = channel.tx_result = 0;
  channel.slot = -1;
  if (!free_slots_.empty()) {
    channel.slot = free_slots_.back();
    free_slots_.pop_back();
    set_slot(channel.slot, fd);
  }
  if (connected) arm(channel);
  return true;
}

int UringEngine::connect(Channel& channel, const sockaddr* address, socklen_t length) {
  // connect(2) itself, one socket at a time as the epoll engine (and wrk) does;
  // the ring only waits for the result. A batch of connect operations sent its
  // SYNs in one burst, faster than a server's accept queue takes them: dropped
  // SYNs wait for the kernel's retransmits (1 s, then longer). At -c10000 against
  // nginx that lost requests in 12 of 27 rounds, where this way (and epoll) lost
  // them in 3 (issue 31, item 15).
  if (::connect(channel.fd, address, length) == 0) {
    arm(channel);
    return 0;
  }
  if (errno != EINPROGRESS) return errno;
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_poll_add(sqe, channel.fd, POLLOUT);  // writable: the connect is over (SO_ERROR says how)
  use_file(sqe, channel);
  io_uring_sqe_set_data64(sqe, tag(channel, kOpConnect));
  channel.io_flags |= kConnecting;
  return EINPROGRESS;
}

Received UringEngine::read(Channel& channel, net::TlsStream& tls) {
  give_back_last();
  if (channel.mode == Mode::kReadiness) {
    // A run whose channels were all to be streams may still have a TLS one (a
    // scenario user's https origin, engine/drive/origin_links.h): its buffer now.
    if (!read_buffer_) read_buffer_ = std::make_unique_for_overwrite<char[]>(kReadBufferBytes);
    char* buffer = read_buffer_.get();
    const net::StampedRead stamped = net::stream_read_stamped(channel.fd, tls, buffer, kReadBufferBytes);
    Received r{stamped.io, buffer, stamped.kernel_arrival_ns, false};
    if (r.io.status == net::IoStatus::kOk) r.drained = net::read_drained(tls, r.io.bytes, kReadBufferBytes);
    return r;
  }
  if (channel.rx_head != kNoBuffer) {
    const std::uint16_t id = channel.rx_head;
    channel.rx_head = next_[id];
    if (channel.rx_head == kNoBuffer) channel.rx_tail = kNoBuffer;
    last_read_ = id;
    Received r{net::IoResult{length_[id], net::IoStatus::kOk, 0}, buffer_at(id) + offset_[id], stamp_[id], false};
    r.drained = channel.rx_head == kNoBuffer && (channel.io_flags & (kEof | kRxError)) == 0;
    return r;
  }
  if ((channel.io_flags & kEof) != 0) return Received{net::IoResult{0, net::IoStatus::kClosed, 0}};
  if ((channel.io_flags & kRxError) != 0) return Received{net::IoResult{0, net::IoStatus::kError, channel.rx_error}};
  return Received{net::IoResult{0, net::IoStatus::kWantRead, 0}};
}

net::IoResult UringEngine::write(Channel& channel, net::TlsStream& tls, std::span<const char> bytes) {
  if (channel.mode == Mode::kReadiness) return net::stream_write(channel.fd, tls, bytes.data(), bytes.size());
  if ((channel.io_flags & kSent) != 0) {
    clear(channel, kSent);
    const int r = channel.tx_result;
    if (r < 0) return net::IoResult{0, net::IoStatus::kError, -r};
    if (r > 0) return net::IoResult{static_cast<std::size_t>(r), net::IoStatus::kOk, 0};
  }
  if ((channel.io_flags & kSending) == 0) {
    io_uring_sqe* sqe = next_sqe();
    // MSG_WAITALL: a short send is carried on by the kernel, so a completion is
    // all the bytes or an error (io/send_tally.h counts on it).
    io_uring_prep_send(sqe, channel.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_WAITALL);
    use_file(sqe, channel);
    io_uring_sqe_set_data64(sqe, tag(channel, kOpSend));
    channel.io_flags |= kSending;
    sends_.queued(bytes.size());
  } else if ((channel.io_flags & kWriteWaiting) == 0) {
    channel.io_flags |= kWriteWaiting;
    sends_.write_waits();
  }
  return net::IoResult{0, net::IoStatus::kWantWrite, 0};
}

void UringEngine::close(Channel& channel) {
  while (channel.rx_head != kNoBuffer) {
    const std::uint16_t id = channel.rx_head;
    channel.rx_head = next_[id];
    give_back(id);
  }
  channel.rx_tail = kNoBuffer;
  if (channel.fd >= 0) {
    if ((channel.io_flags & kArmed) != 0) cancel(channel, channel.mode == Mode::kStream ? kOpRecv : kOpPoll);
    if ((channel.io_flags & kSending) != 0) cancel(channel, kOpSend);
    if ((channel.io_flags & kConnecting) != 0) cancel(channel, kOpConnect);
    if (channel.slot >= 0) {  // the table lets go of the socket after the cancellations
      set_slot(channel.slot, -1);
      free_slots_.push_back(channel.slot);
      channel.slot = -1;
    }
    // The kernel holds the socket until those are submitted (the next enter).
    ::close(channel.fd);
    channel.fd = -1;
  }
  if ((channel.io_flags & kWriteWaiting) != 0) sends_.write_done();
  channel.io_flags = 0;
  channel.rx_error = channel.tx_result = 0;
  ++channel.generation;
}

// ---- buffers -----------------------------------------------------------------

void UringEngine::give_back(std::uint16_t buffer) {
  io_uring_buf_ring_add(buf_ring_, buffer_at(buffer), kBufferBytes, buffer,
                        io_uring_buf_ring_mask(buffer_count_), 0);
  io_uring_buf_ring_advance(buf_ring_, 1);
}

void UringEngine::give_back_last() {
  if (last_read_ == kNoBuffer) return;
  give_back(last_read_);
  last_read_ = kNoBuffer;
}

void UringEngine::rearm_starved() {
  for (const auto& [channel, generation] : starved_) {
    if (channel->generation != generation || channel->fd < 0) continue;
    if ((channel->io_flags & (kArmed | kEof | kRxError)) == 0) arm(*channel);
  }
  starved_.clear();
}

// ---- waiting and completions -----------------------------------------------------

namespace {
#ifdef IORING_ENTER_ABS_TIMER
constexpr unsigned kAbsTimer = IORING_ENTER_ABS_TIMER;
#else
constexpr unsigned kAbsTimer = 1U << 5;  // Linux 6.12's value; liburing before 2.8 lacks the name
#endif
}  // namespace

// Submits what is queued and waits for a completion until `deadline_ns` on
// CLOCK_MONOTONIC (IORING_ENTER_ABS_TIMER, Linux 6.12). A relative timeout starts
// when the kernel gets to the wait: after this enter's submissions (a loopback send
// runs the peer's receive inline) and the deferred task work it runs first, so the
// wake-up came that much late. -EINVAL: the kernel has no absolute timer.
int UringEngine::enter_until(TimeNs deadline_ns, std::uint32_t min_complete) {
  // liburing's SQ flush (io_uring_submit's first step): publish the queued entries.
  io_uring_sq& sq = ring_.sq;
  const unsigned tail = sq.sqe_tail;
  if (sq.sqe_head != tail) {
    sq.sqe_head = tail;
    io_uring_smp_store_release(sq.ktail, tail);
  }
  const unsigned to_submit = tail - io_uring_smp_load_acquire(sq.khead);
  __kernel_timespec at{deadline_ns / kNsPerS, deadline_ns % kNsPerS};
  io_uring_getevents_arg arg{};
  arg.ts = reinterpret_cast<std::uintptr_t>(&at);
  const int r = io_uring_enter2(ring_.ring_fd, to_submit, min_complete, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG | kAbsTimer,
                                reinterpret_cast<sigset_t*>(&arg), sizeof(arg));
  return r;  // liburing returns -errno
}

int UringEngine::wait(TimeNs timeout_ns, Events& events) {
  give_back_last();
  if (!starved_.empty()) rearm_starved();
  if (!enabled_) enable();
  int r = -EINVAL;
  const std::uint32_t min_complete = sends_.wait_for();  // the queued sends' and one more
  // The timeout runs from here, before this enter's submissions and task work.
  if (abs_timer_ && timeout_ns > 0) {
    r = enter_until(monotonic_now_ns() + timeout_ns, min_complete);
    if (r == -EINVAL) abs_timer_ = false;  // an older kernel: relative from now on
  }
  if (!abs_timer_ || timeout_ns <= 0) {
    __kernel_timespec timeout{timeout_ns / kNsPerS, timeout_ns % kNsPerS};
    io_uring_cqe* first = nullptr;
    r = io_uring_submit_and_wait_timeout(&ring_, &first, min_complete, &timeout, nullptr);
  }
  sends_.reset();
  wake_mono_ = monotonic_now_ns();
  real_minus_mono_ = realtime_now_ns() - wake_mono_;
  events.on_wake(wake_mono_);
  if (r < 0 && r != -ETIME && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
    errno = -r;
    return -1;
  }
  int reported = 0;
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_cqe* cqe = nullptr;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    ++seen;
    const std::uint64_t op = (cqe->user_data >> kOpShift) & 7;
    if (op == kOpRecv || op == kOpConnect) ++reported;
    complete(*cqe, events);
  }
  io_uring_cq_advance(&ring_, seen);
  return reported;
}

void UringEngine::complete(const io_uring_cqe& cqe, Events& events) {
  const std::uint64_t data = cqe.user_data;
  const auto op = static_cast<Op>((data >> kOpShift) & 7);
  if (op == kOpIgnore || op == 0) return;
  auto& channel = *reinterpret_cast<Channel*>(data & kPointerMask);
  if ((channel.generation & kGenerationMask) != (data >> kGenerationShift)) {  // a socket closed since
    if ((cqe.flags & IORING_CQE_F_BUFFER) != 0) give_back(static_cast<std::uint16_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT));
    return;
  }
  switch (op) {
    case kOpConnect: {
      clear(channel, kConnecting);
      const int err = cqe.res < 0 ? -cqe.res : net::socket_error(channel.fd);
      if (err == 0) arm(channel);
      events.on_io(channel, kConnected, err);
      return;
    }
    case kOpRecv:
      received(channel, cqe, events);
      return;
    case kOpSend:
      clear(channel, kSending);
      if ((channel.io_flags & kWriteWaiting) != 0) {
        clear(channel, kWriteWaiting);
        sends_.write_done();
      }
      channel.io_flags |= kSent;
      channel.tx_result = cqe.res;
      events.on_io(channel, kWritable, 0);
      return;
    case kOpPoll: {
      if ((cqe.flags & IORING_CQE_F_MORE) == 0) clear(channel, kArmed);
      if (cqe.res < 0) {
        if (cqe.res != -ECANCELED) arm(channel);  // a poll the kernel ended (an overflow): again
        return;
      }
      const auto mask = static_cast<std::uint32_t>(cqe.res);
      std::uint32_t flags = 0;
      if ((mask & POLLIN) != 0) flags |= kReadable;
      if ((mask & POLLOUT) != 0) flags |= kWritable;
      if ((mask & (POLLRDHUP | POLLHUP | POLLERR)) != 0) flags |= kPeerClosing | kReadable;
      if ((channel.io_flags & kArmed) == 0) arm(channel);
      events.on_io(channel, flags, 0);
      return;
    }
    default:
      return;
  }
}

void UringEngine::received(Channel& channel, const io_uring_cqe& cqe, Events& events) {
  const bool more = (cqe.flags & IORING_CQE_F_MORE) != 0;
  if (!more) clear(channel, kArmed);
  if (cqe.res < 0) {
    if (cqe.res == -ENOBUFS) {  // out of buffers: armed again once some come back
      starved_.emplace_back(&channel, channel.generation);
      return;
    }
    if (cqe.res == -ECANCELED) return;
    channel.rx_error = -cqe.res;
    channel.io_flags |= kRxError;
    events.on_io(channel, kReadable, 0);
    return;
  }
  const auto id = static_cast<std::uint16_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
  io_uring_recvmsg_out* out = io_uring_recvmsg_validate(buffer_at(id), cqe.res, &recv_msg_);
  const std::uint32_t length = out == nullptr ? 0 : io_uring_recvmsg_payload_length(out, cqe.res, &recv_msg_);
  if (length == 0) {  // the peer closed (a receive of 0 bytes ends the multishot)
    give_back(id);
    channel.io_flags |= kEof;
    events.on_io(channel, kReadable, 0);
    return;
  }
  TimeNs stamp = 0;
  for (cmsghdr* c = io_uring_recvmsg_cmsg_firsthdr(out, &recv_msg_); c != nullptr;
       c = io_uring_recvmsg_cmsg_nexthdr(out, &recv_msg_, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec kernel{};
    std::memcpy(&kernel, CMSG_DATA(c), sizeof kernel);
    if (kernel.tv_sec != 0 || kernel.tv_nsec != 0) {
      // CLOCK_REALTIME to CLOCK_MONOTONIC, never later than this wake-up.
      stamp = std::min(static_cast<TimeNs>(kernel.tv_sec) * kNsPerS + kernel.tv_nsec - real_minus_mono_, wake_mono_);
    }
    break;
  }
  const auto* payload = static_cast<const char*>(io_uring_recvmsg_payload(out, &recv_msg_));
  offset_[id] = static_cast<std::uint16_t>(payload - buffer_at(id));
  length_[id] = static_cast<std::uint16_t>(length);
  stamp_[id] = stamp;
  next_[id] = kNoBuffer;
  if (channel.rx_tail == kNoBuffer) {
    channel.rx_head = id;
  } else {
    next_[channel.rx_tail] = id;
  }
  channel.rx_tail = id;
  if (!more) starved_.emplace_back(&channel, channel.generation);  // ended for another reason: armed again
  events.on_io(channel, kReadable, 0);
}

}  // namespace pacer::io
