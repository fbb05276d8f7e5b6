// The I/O engine seam: how a worker's sockets wait, connect, read, write and
// close, whatever mechanism runs underneath (epoll or io_uring). The worker owns
// connections, request slots, the schedule, timeouts and recording; an Engine
// owns the kernel side: the wait with a nanosecond deadline, registration,
// connects, the read buffer(s) and their receive stamps, writes, cancellation.
// The worker never learns which engine runs (io/select.h picks one per run).
//
// Each socket is a Channel, the worker's connection derives from it (no lookup,
// no extra pointer). An engine reports what happened to a channel through
// Events::on_io, one call per event; the worker then reads with read() until a
// read says `drained` (or its own budget stops it) and writes with write()
// until it would block. Costs: one indirect call per I/O operation and per
// event, never per byte.
//
// Two channel modes:
//  - kStream: the engine moves the bytes (plain TCP). On epoll a read is a
//    recvmsg into the engine's buffer; on io_uring the bytes were already received
//    (multishot, provided buffers) and a read hands out the next buffer. A write
//    may complete later (io_uring batches sends: kWantWrite, then a kWritable
//    event, then the next write() reports what was sent).
//  - kReadiness: the engine only reports readiness and the owner moves the
//    bytes itself: TLS (OpenSSL reads the socket through its BIO, with receive
//    stamps) and datagram sockets (HTTP/3: the worker reads and writes QUIC's
//    UDP datagrams with recvmmsg/sendmmsg on readiness; a batched datagram
//    operation can join this interface when an engine does better than that).
//
// Thread: an Engine and its channels are owned and touched by one worker thread.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <span>

#include "core/clock.h"
#include "net/tls_stream.h"

namespace pacer::io {

enum class EngineKind : std::uint8_t { kEpoll, kUring };

enum class Mode : std::uint8_t {
  kStream,     // the engine moves the bytes (plain TCP)
  kReadiness,  // the owner moves the bytes on readiness (TLS, datagrams)
};

// Event flags (Events::on_io).
inline constexpr std::uint32_t kReadable = 1U << 0;     // read() has bytes, an EOF or an error to report
inline constexpr std::uint32_t kWritable = 1U << 1;     // a write that would block may go on
inline constexpr std::uint32_t kPeerClosing = 1U << 2;  // the peer hung up or the socket has an error
inline constexpr std::uint32_t kConnected = 1U << 3;    // the connect finished (on_io's err: 0 or why not)

// One socket as an engine sees it. Public: fd (-1 when none). The rest is the
// engine's own per-socket state (kept small: one per connection).
struct Channel {
  int fd = -1;
  Mode mode = Mode::kStream;
  std::uint8_t io_flags = 0;       // engine-private state bits
  std::uint16_t generation = 0;    // bumped at each close: late completions of an old socket are ignored
  std::uint16_t rx_head = 0xffff;  // io_uring: received buffers not read yet (a FIFO through the engine)
  std::uint16_t rx_tail = 0xffff;
  int tx_result = 0;               // io_uring: the finished send's result, for the next write()
  int rx_error = 0;                // io_uring: the errno that ended the receives
  std::int32_t slot = -1;          // io_uring: its index among the ring's registered files (-1: none)
};

// One read: what the socket gave, and when the kernel received it.
struct Received {
  net::IoResult io;               // kOk with bytes > 0, kWantRead, kClosed, kError, kTlsError
  const char* data = nullptr;     // valid until the next read() or wait()
  TimeNs stamp = 0;               // monotonic kernel receive time of these bytes; 0 unstamped
  bool drained = false;           // kOk: nothing more to read until the next kReadable event
};

// Implemented by the engine's owner (the worker).
class Events {
 public:
  // A wait returned: called once, before its events. now_ns: the monotonic clock
  // read once by the engine when the wait returned (the owner's clock for this
  // wake-up: no second read).
  virtual void on_wake(TimeNs now_ns) = 0;
  // `flags`: kReadable | kWritable | kPeerClosing, or kConnected with `err`.
  virtual void on_io(Channel& channel, std::uint32_t flags, int err) = 0;

 protected:
  ~Events() = default;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual EngineKind kind() const = 0;

  // Starts watching a non-blocking socket. `connected`: it is connected already
  // (no connect() follows). False with errno set when the kernel refuses; the
  // channel owns fd either way (close() closes it).
  virtual bool attach(Channel& channel, int fd, Mode mode, bool connected) = 0;
  // Connects an attached socket: 0 when connected at once, EINPROGRESS when a
  // kConnected event will tell, or the errno of a failure. `address` must stay
  // valid until that event.
  virtual int connect(Channel& channel, const sockaddr* address, socklen_t length) = 0;
  // The next bytes received on the channel. `tls`: the channel's TLS stream
  // (active for kReadiness TLS channels).
  virtual Received read(Channel& channel, net::TlsStream& tls) = 0;
  // Writes (or queues) up to bytes.size() bytes: kOk with how many were taken,
  // kWantWrite when it must wait for a kWritable event, kError/kTlsError. The
  // bytes must stay unchanged until write() reports them taken (io_uring queues
  // the send and reads them at the next wait), so a buffer shared by channels
  // must never be handed to write().
  virtual net::IoResult write(Channel& channel, net::TlsStream& tls, std::span<const char> bytes) = 0;
  // Closes the socket and forgets everything in flight for it; channel.fd = -1.
  virtual void close(Channel& channel) = 0;
  // Hands queued operations to the kernel now (before the worker sleeps
  // without waiting here). A no-op where operations are not queued.
  virtual void submit() = 0;
  // Waits up to timeout_ns (0: poll) for events, calls events.on_wake() and
  // then reports each event.
  // Returns how many sockets had news, for the owner's batching (epoll: its
  // events; io_uring: its receive and connect completions, not sends or polls),
  // or -1 on a failed wait (errno set).
  virtual int wait(TimeNs timeout_ns, Events& events) = 0;
  // Every channel was closed and nothing follows but the engine's destruction:
  // what their closes left to the kernel runs now, on this thread, so that the
  // sockets' teardown (their FIN, the last reference) is this process's work and
  // not the kernel's after it exited (io_uring: the receives' cancellations are
  // submitted and reaped; they held the sockets). A no-op where a close is final.
  virtual void finish() {}
};

const char* engine_name(EngineKind kind);

}  // namespace pacer::io
