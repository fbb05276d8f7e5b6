// The epoll engine: sockets registered once, edge-triggered, for input and
// output (a request costs one send and one recvmsg besides epoll_wait, no
// epoll_ctl), waits with a nanosecond timeout (net/event_wait.h), reads into one
// 64 KiB buffer with the kernel's receive stamp (SO_TIMESTAMPNS cmsg). Both
// channel modes behave alike here: readiness is all epoll knows. See io/engine.h.
#pragma once

#include <sys/epoll.h>

#include <memory>
#include <vector>

#include "core/expected.h"
#include "core/unique_fd.h"
#include "io/engine.h"
#include "net/event_wait.h"

namespace pacer::io {

class EpollEngine final : public Engine {
 public:
  static constexpr std::size_t kReadBufferBytes = 64 * 1024;

  static Result<std::unique_ptr<Engine>> create();

  EngineKind kind() const override { return EngineKind::kEpoll; }
  bool attach(Channel& channel, int fd, Mode mode, bool connected) override;
  int connect(Channel& channel, const sockaddr* address, socklen_t length) override;
  Received read(Channel& channel, net::TlsStream& tls) override;
  net::IoResult write(Channel& channel, net::TlsStream& tls, std::span<const char> bytes) override;
  void close(Channel& channel) override;
  void submit() override {}
  int wait(TimeNs timeout_ns, Events& events) override;

 private:
  EpollEngine() = default;

  UniqueFd epoll_;
  net::EventWait event_wait_;
  std::vector<epoll_event> events_;
  std::unique_ptr<char[]> read_buffer_;
};

}  // namespace pacer::io
