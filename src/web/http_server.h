// The web view's HTTP/1.1 server: one thread of its own, one poll loop, a few
// connections. Careful rather than fast: request heads are capped (8 KiB), so
// are the connections held at once (32; more get 503), a head must arrive
// within 10 s, a reader that takes nothing for 30 s is dropped, and every
// reply closes its connection (the event stream when the run ends). Nothing it
// does touches a worker; the run reaches it only through LiveFeed and the stop
// callback. Limits: docs/limits.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/clock.h"
#include "core/expected.h"
#include "core/unique_fd.h"
#include "web/live_feed.h"
#include "web/routes.h"

namespace pacer::web {

inline constexpr std::size_t kMaxHeadBytes = 8 * 1024;
inline constexpr std::size_t kMaxClients = 32;
inline constexpr TimeNs kHeadTimeoutNs = 10 * kNsPerS;
inline constexpr TimeNs kStallTimeoutNs = 30 * kNsPerS;
inline constexpr TimeNs kKeepAliveCommentNs = 15 * kNsPerS;  // an SSE comment, so a dead page is noticed

// Whether a numeric address is a loopback one (127.0.0.0/8, ::1, ::ffff:127.x).
bool is_loopback_address(const std::string& host);

class HttpServer {
 public:
  // Binds host:port (a numeric address; port 0: any free one) and starts the
  // thread. Errors (kBadArgument, exit 2) name the address and the reason
  // (an address in use, not this machine's). on_stop runs on the web thread.
  static Result<std::unique_ptr<HttpServer>> start(const std::string& host, std::uint16_t port, AccessRules rules,
                                                   const LiveFeed& feed, std::function<void()> on_stop);
  ~HttpServer();  // stop(0)
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const { return port_; }
  // Ends the thread: gives open event streams up to flush_ns to take what is
  // queued (the end event), then closes everything. Idempotent; main thread.
  void stop(TimeNs flush_ns);

 private:
  // Only start() builds one.
  HttpServer(UniqueFd listener, std::uint16_t port, AccessRules rules, const LiveFeed& feed,
             std::function<void()> on_stop);
  void loop();

  UniqueFd listener_;
  std::uint16_t port_;
  AccessRules rules_;
  const LiveFeed& feed_;
  std::function<void()> on_stop_;
  UniqueFd stop_event_;  // eventfd: stop() asks the loop to end
  std::atomic<TimeNs> flush_until_ns_{0};
  std::thread thread_;
};

}  // namespace pacer::web
