// Connection: the service loop, output (queueing, writing, counting) and socket
// input. Request parsing lives in connection_parse.cc. See connection.h.
#include "server/connection.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/transport.h"
#include "net/receive_stamp.h"

namespace pacer::server {
namespace {

constexpr std::size_t kMaxInlineBodyBytes = 2048;      // smaller bodies are copied next to their head
constexpr std::size_t kBytesPerTurn = std::size_t{1} << 20;  // read + write budget of one turn
constexpr int kMaxIov = 16;
constexpr std::size_t kMaxKeptEchoCapacity = std::size_t{1} << 20;
constexpr std::size_t kMaxDrainOnCloseBytes = 64 * 1024;

}  // namespace

Connection::Connection()
    : in_(std::make_unique_for_overwrite<char[]>(kInputBytes)),
      out_(std::make_unique_for_overwrite<char[]>(kOutputBytes)) {}

void Connection::open(UniqueFd socket, LoopContext& ctx) {
  fd_ = std::move(socket);
  state_ = ctx.shared.tls != nullptr ? State::kHandshaking : State::kReady;
  ++generation_;
  maybe_readable_ = false;  // epoll reports input already waiting when the socket is added
  close_after_write_ = false;
  counted_connection_ = true;
  requests_seen_ = 0;
  llhttp_init(&parser_, HTTP_REQUEST, &parser_settings());
  parser_.data = this;
  in_end_ = parse_pos_ = request_start_ = 0;
  url_seen_ = headers_done_ = false;
  echo_.clear();
  out_begin_ = out_end_ = 0;
  stream_.clear();
  queued_bytes_ = written_bytes_ = 0;
  pending_first_ = pending_count_ = 0;
  WorkerCounters::add(ctx.counters.connections_accepted);
  WorkerCounters::add(ctx.counters.connections_open);
  if (state_ == State::kHandshaking && !tls_.start_server(*ctx.shared.tls, fd_.get())) close(ctx);
}

void Connection::continue_handshake(LoopContext& ctx) {
  switch (tls_.handshake()) {
    case net::IoStatus::kOk:
      state_ = State::kReady;
      // The client's first request may have come with its Finished message and
      // already sit in the socket: no new edge will announce it.
      maybe_readable_ = true;
      service(ctx);
      return;
    case net::IoStatus::kWantRead:
    case net::IoStatus::kWantWrite: return;
    default: close(ctx); return;  // a client that does not trust us, or not TLS at all
  }
}

void Connection::on_event(std::uint32_t events, LoopContext& ctx) {
  if (is_closed()) return;
  if ((events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) {
    close(ctx);  // the peer is gone or going: nothing pending is answered
    return;
  }
  if (state_ == State::kHandshaking) {
    continue_handshake(ctx);
    return;
  }
  if ((events & EPOLLIN) != 0) maybe_readable_ = true;
  service(ctx);
}

void Connection::on_timer(std::uint64_t generation, LoopContext& ctx) {
  if (generation != generation_ || state_ != State::kDelayed) return;
  state_ = State::kReady;
  queue_reply(delayed_reply_);
  service(ctx);
}

void Connection::resume(std::uint64_t generation, LoopContext& ctx) {
  if (generation != generation_ || is_closed()) return;
  service(ctx);
}

void Connection::close(LoopContext& ctx) {
  if (is_closed()) return;
  state_ = State::kClosed;
  tls_.close();
  fd_.reset();
  stream_.clear();
  pending_count_ = 0;
  if (echo_.capacity() > kMaxKeptEchoCapacity) std::string().swap(echo_);
  WorkerCounters::subtract(ctx.counters.connections_open);
}

// One turn: parse what is buffered, write, read more; until the socket would block,
// the connection waits (delay, never), closes, or spends its budget.
void Connection::service(LoopContext& ctx) {
  std::size_t budget_bytes = kBytesPerTurn;
  for (;;) {
    if (state_ == State::kReady) process_input(ctx);
    if (is_closed() || !flush(ctx, budget_bytes)) return;
    if (close_after_write_) {
      close_gracefully(ctx);
      return;
    }
    if (state_ == State::kDelayed) return;
    // process_input stopped only for lack of output room, which the flush made.
    if (state_ == State::kReady && parse_pos_ < in_end_) continue;
    if (!maybe_readable_) return;
    if (budget_bytes == 0) {
      ctx.again.push_back(ref());
      return;
    }
    if (!read_input(ctx, budget_bytes)) return;
  }
}

void Connection::queue_reply(Reply reply) {
  if (reply.body == BodyKind::kChunked && is_http10_) reply.body = BodyKind::kPattern;  // HTTP/1.0 has no chunked coding
  const bool truncate = reply.action == ReplyAction::kTruncate;
  if (!keep_alive_ || truncate || reply.hang_up) close_after_write_ = true;
  const ConnectionHeader header =
      !keep_alive_ ? ConnectionHeader::kClose : (is_http10_ ? ConnectionHeader::kKeepAlive : ConnectionHeader::kNone);
  // process_input keeps room for a head and an inline body before parsing a request.
  const std::size_t head_bytes = write_head({out_.get() + out_end_, output_free_bytes()}, reply, header);
  out_end_ += head_bytes;
  if (!is_head_ && !truncate) {
    switch (reply.body) {
      case BodyKind::kNone: break;
      case BodyKind::kText: stream_.add(plain_segment(reply.text)); break;
      case BodyKind::kPattern: stream_.add(pattern_segment(reply.body_bytes)); break;
      case BodyKind::kChunked: add_chunked_body(stream_, reply.body_bytes, chunk_scratch_); break;
      case BodyKind::kEcho: stream_.add(plain_segment(echo_)); break;
    }
  }
  const std::uint64_t body_wire_bytes = stream_.remaining_bytes();
  if (body_wire_bytes <= kMaxInlineBodyBytes && body_wire_bytes <= output_free_bytes()) {
    stream_.drain_into(out_.get() + out_end_);
    out_end_ += static_cast<std::size_t>(body_wire_bytes);
  }
  queued_bytes_ += head_bytes + body_wire_bytes;
  if (reply.counted) {
    pending_ends_[(pending_first_ + pending_count_) % kMaxPendingReplies] = queued_bytes_;
    ++pending_count_;
  }
}

// A request the parser rejected (or one too large to hold): answer and close.
void Connection::queue_error(int status) {
  keep_alive_ = false;
  is_head_ = false;
  queue_reply(status_reply(status));
}

// Writes out_ then the stream. Returns true once everything queued is written;
// false when the socket would block (EPOLLOUT resumes), the budget is spent (the
// connection is put on the again list) or the connection closed.
bool Connection::flush(LoopContext& ctx, std::size_t& budget_bytes) {
  while (out_end_ > out_begin_ || !stream_.empty()) {
    if (budget_bytes == 0) {
      ctx.again.push_back(ref());
      return false;
    }
    iovec iov[kMaxIov];
    int count = 0;
    const std::size_t out_bytes = out_end_ - out_begin_;
    if (out_bytes > 0) iov[count++] = iovec{out_.get() + out_begin_, out_bytes};
    count += stream_.fill_iov(iov + count, kMaxIov - count, budget_bytes);
    const ssize_t sent = write_iov(iov, count);
    if (sent < 0) {
      if (sent == kWriteFailed) close(ctx);
      return false;  // kWriteBlocked: EPOLLOUT resumes
    }
    const auto sent_bytes = static_cast<std::size_t>(sent);
    budget_bytes -= std::min(budget_bytes, sent_bytes);
    const std::size_t from_out = std::min(sent_bytes, out_bytes);
    out_begin_ += from_out;
    stream_.advance(sent_bytes - from_out);
    written_bytes_ += sent_bytes;
    while (pending_count_ > 0 && pending_ends_[pending_first_] <= written_bytes_) {
      pending_first_ = (pending_first_ + 1) % kMaxPendingReplies;
      --pending_count_;
      WorkerCounters::add(ctx.counters.requests_answered);
    }
  }
  out_begin_ = out_end_ = 0;
  return true;
}

ssize_t Connection::write_iov(const iovec* iov, int count) {
  if (tls_.active()) {
    // One record per call: a gather would need a copy, and OpenSSL wants the
    // same bytes again after a want-write, which iov[0] still is next time.
    const net::IoResult w = tls_.write(static_cast<const char*>(iov[0].iov_base), iov[0].iov_len);
    if (w.status == net::IoStatus::kOk) return static_cast<ssize_t>(w.bytes);
    return w.status == net::IoStatus::kWantWrite || w.status == net::IoStatus::kWantRead ? kWriteBlocked : kWriteFailed;
  }
  msghdr message{};
  message.msg_iov = const_cast<iovec*>(iov);
  message.msg_iovlen = static_cast<std::size_t>(count);
  while (true) {
    const ssize_t sent = ::sendmsg(fd_.get(), &message, MSG_NOSIGNAL);
    if (sent >= 0) return sent;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? kWriteBlocked : kWriteFailed;
  }
}

// Reads once into the input buffer. Returns true if the turn should go on.
bool Connection::read_input(LoopContext& ctx, std::size_t& budget_bytes) {
  if (state_ == State::kNever) {
    in_end_ = parse_pos_ = request_start_ = 0;  // /never discards everything after its request
  } else {
    compact_input();
  }
  if (in_end_ == kInputBytes) {
    // Everything held is one request's line and headers: more than we accept.
    queue_error(431);
    return true;
  }
  const std::size_t room_bytes = kInputBytes - in_end_;
  // With the arrival log, the kernel's receive stamp says when a request came
  // (plain or TLS; without a stamp, the time of the read).
  net::IoResult got;
  if (ctx.arrivals != nullptr) {
    const net::StampedRead stamped = net::stream_read_stamped(fd_.get(), tls_, in_.get() + in_end_, room_bytes);
    got = stamped.io;
    input_arrival_ns_ = stamped.kernel_arrival_ns != 0 ? stamped.kernel_arrival_ns : monotonic_now_ns();
  } else {
    got = net::stream_read(fd_.get(), tls_, in_.get() + in_end_, room_bytes);
  }
  if (got.status == net::IoStatus::kOk) {
    // A drained socket (a short plain read; for TLS see TlsStream::drained):
    // data arriving later raises a new edge, so skip the read that would only
    // return EAGAIN.
    if (net::read_drained(tls_, got.bytes, room_bytes)) maybe_readable_ = false;
    in_end_ += got.bytes;
    budget_bytes -= std::min(budget_bytes, got.bytes);
    return true;
  }
  if (got.status == net::IoStatus::kWantRead || got.status == net::IoStatus::kWantWrite) {
    maybe_readable_ = false;
    return false;
  }
  close(ctx);  // EOF, a socket error or a TLS failure
  return false;
}

void Connection::compact_input() {
  if (request_start_ == 0) return;
  std::memmove(in_.get(), in_.get() + request_start_, in_end_ - request_start_);
  in_end_ -= request_start_;
  parse_pos_ -= request_start_;
  request_start_ = 0;
}

// After the last reply: send FIN first and read what the peer already sent, so the
// close does not reset the connection and destroy the reply in flight.
void Connection::close_gracefully(LoopContext& ctx) {
  tls_.close();  // close_notify first: the peer sees a clean end of the TLS stream
  ::shutdown(fd_.get(), SHUT_WR);
  std::size_t drained_bytes = 0;
  while (drained_bytes < kMaxDrainOnCloseBytes) {
    const ssize_t got = ::read(fd_.get(), in_.get(), kInputBytes);
    if (got <= 0) break;
    drained_bytes += static_cast<std::size_t>(got);
  }
  close(ctx);
}

}  // namespace pacer::server
