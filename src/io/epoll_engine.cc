// The epoll engine. See epoll_engine.h.
#include "io/epoll_engine.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "net/receive_stamp.h"
#include "net/socket.h"
#include "net/transport.h"

namespace pacer::io {

namespace {

constexpr int kMaxEvents = 256;
constexpr std::uint8_t kConnecting = 1;  // Channel::io_flags: a connect is in progress
constexpr int kGenerationShift = 48;     // user-space pointers fit in 48 bits

// An event carries the channel and its generation: an event for a socket closed
// (and maybe reopened) earlier in the same batch is recognised and dropped.
std::uint64_t pack(const Channel& channel) {
  return reinterpret_cast<std::uintptr_t>(&channel) | (std::uint64_t{channel.generation} << kGenerationShift);
}

}  // namespace

const char* engine_name(EngineKind kind) { return kind == EngineKind::kUring ? "io_uring" : "epoll"; }

Result<std::unique_ptr<Engine>> EpollEngine::create() {
  std::unique_ptr<EpollEngine> engine(new EpollEngine());
  engine->epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!engine->epoll_.valid()) return runtime_error(fmt::format("epoll_create1: {}", std::strerror(errno)));
  engine->events_.resize(kMaxEvents);
  // Not zeroed: a page is resident only once a read reaches it.
  engine->read_buffer_ = std::make_unique_for_overwrite<char[]>(kReadBufferBytes);
  return std::unique_ptr<Engine>(std::move(engine));
}

bool EpollEngine::attach(Channel& channel, int fd, Mode mode, bool /*connected*/) {
  channel.fd = fd;
  channel.mode = mode;
  channel.io_flags = 0;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.u64 = pack(channel);
  return ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) == 0;
}

int EpollEngine::connect(Channel& channel, const sockaddr* address, socklen_t length) {
  if (::connect(channel.fd, address, length) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  channel.io_flags |= kConnecting;  // the next EPOLLOUT (or error) ends it
  return EINPROGRESS;
}

Received EpollEngine::read(Channel& channel, net::TlsStream& tls) {
  char* buffer = read_buffer_.get();
  const net::StampedRead stamped = net::stream_read_stamped(channel.fd, tls, buffer, kReadBufferBytes);
  Received r{stamped.io, buffer, stamped.kernel_arrival_ns, false};
  // Edge-triggered: a drained socket brings a new event with its next byte.
  if (r.io.status == net::IoStatus::kOk) r.drained = net::read_drained(tls, r.io.bytes, kReadBufferBytes);
  return r;
}

net::IoResult EpollEngine::write(Channel& channel, net::TlsStream& tls, std::span<const char> bytes) {
  return net::stream_write(channel.fd, tls, bytes.data(), bytes.size());
}

void EpollEngine::close(Channel& channel) {
  channel.io_flags = 0;
  ++channel.generation;
  if (channel.fd < 0) return;
  ::close(channel.fd);  // also removes it from the epoll set
  channel.fd = -1;
}

int EpollEngine::wait(TimeNs timeout_ns, Events& events) {
  const int n = event_wait_.wait(epoll_.get(), events_.data(), kMaxEvents, timeout_ns);
  events.on_wake(monotonic_now_ns());
  for (int i = 0; i < n; ++i) {
    const epoll_event& event = events_[static_cast<std::size_t>(i)];
    auto& channel = *reinterpret_cast<Channel*>(event.data.u64 & ((std::uint64_t{1} << kGenerationShift) - 1));
    if (channel.generation != static_cast<std::uint16_t>(event.data.u64 >> kGenerationShift)) continue;  // stale
    const std::uint32_t ev = event.events;
    if ((channel.io_flags & kConnecting) != 0) {
      if ((ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == 0) continue;
      channel.io_flags &= static_cast<std::uint8_t>(~kConnecting);
      // A failed connect always raises EPOLLERR or EPOLLHUP: only then is there an
      // error to read (one getsockopt fewer per connection at -c10000).
      const int err = (ev & (EPOLLERR | EPOLLHUP)) != 0 ? net::socket_error(channel.fd) : 0;
      events.on_io(channel, kConnected, err);
      continue;
    }
    std::uint32_t flags = 0;
    if ((ev & EPOLLIN) != 0) flags |= kReadable;
    if ((ev & EPOLLOUT) != 0) flags |= kWritable;
    if ((ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) flags |= kPeerClosing | kReadable;
    events.on_io(channel, flags, 0);
  }
  return n;
}

}  // namespace pacer::io
