// The web view's server loop; see the header. One poll() over the listening
// socket, two eventfds (stop, new figures) and at most kMaxClients connections.
#include "web/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/stop_signals_thread.h"

namespace pacer::web {

namespace {

constexpr TimeNs kCloseWaitNs = 2 * kNsPerS;   // after the reply: wait this long for the peer to close
constexpr std::size_t kStreamQueueBytes = 64 * 1024;  // events queued for one page at a time
constexpr int kPollMs = 250;

enum class Phase { kHead, kReply, kStream, kClosing, kDone };

struct Client {
  UniqueFd fd;
  Phase phase = Phase::kHead;
  std::string in;
  std::string out;
  std::size_t out_sent = 0;
  std::uint64_t next_event = 0;
  bool end_queued = false;
  TimeNs deadline_ns = 0;   // kHead: the head's; kReply/kStream: the next write's; kClosing: the peer's close
  TimeNs last_write_ns = 0;
  bool pending() const { return out_sent < out.size(); }
};

class Loop {
 public:
  Loop(int listener, int stop_fd, const AccessRules& rules, const LiveFeed& feed,
       const std::function<void()>& on_stop, const std::atomic<TimeNs>& flush_until_ns)
      : listener_(listener), stop_fd_(stop_fd), rules_(rules), feed_(feed), on_stop_(on_stop),
        flush_until_ns_(flush_until_ns) {}

  void run() {
    std::vector<pollfd> fds;
    while (true) {
      const TimeNs flush_until = flush_until_ns_.load();
      if (flush_until != 0 && (monotonic_now_ns() >= flush_until || !any_output_left())) return;
      fds.clear();
      fds.push_back({flush_until == 0 ? listener_ : -1, POLLIN, 0});
      fds.push_back({stop_fd_, POLLIN, 0});
      fds.push_back({feed_.wake_fd(), POLLIN, 0});
      for (const auto& c : clients_) fds.push_back({c->fd.get(), static_cast<short>(c->pending() ? POLLOUT : POLLIN), 0});
      if (poll(fds.data(), fds.size(), kPollMs) < 0 && errno != EINTR) return;
      const TimeNs now = monotonic_now_ns();
      if ((fds[0].revents & POLLIN) != 0) accept_all(now);
      if ((fds[1].revents & POLLIN) != 0) {
        std::uint64_t count = 0;
        [[maybe_unused]] const ssize_t n = ::read(stop_fd_, &count, sizeof count);
      }
      if ((fds[2].revents & POLLIN) != 0) feed_.drain_wake();
      for (std::size_t i = 3; i < fds.size(); ++i) {
        Client& c = *clients_[i - 3];
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !c.pending()) on_readable(c, now);
        if ((fds[i].revents & (POLLOUT | POLLERR)) != 0 && c.pending()) write_out(c, now);
      }
      for (auto& c : clients_) {
        if (c->phase == Phase::kStream) fill_stream(*c, now);
        if (c->phase != Phase::kDone && now >= c->deadline_ns) c->phase = Phase::kDone;  // too slow: dropped
      }
      std::erase_if(clients_, [](const auto& c) { return c->phase == Phase::kDone; });
    }
  }

 private:
  bool any_output_left() const {
    const bool finished = feed_.finished();
    return std::any_of(clients_.begin(), clients_.end(), [finished](const auto& c) {
      return c->pending() || (c->phase == Phase::kStream && finished && !c->end_queued);
    });
  }

  void accept_all(TimeNs now) {
    while (true) {
      UniqueFd fd(accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (!fd.valid()) return;
      if (clients_.size() >= kMaxClients) {
        const Reply busy = error_reply(503, "the web view holds its most connections");
        const std::string bytes = busy.head + busy.body;
        [[maybe_unused]] const ssize_t n = send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        continue;  // closed here
      }
      auto client = std::make_unique<Client>();
      client->fd = std::move(fd);
      client->deadline_ns = now + kHeadTimeoutNs;
      clients_.push_back(std::move(client));
    }
  }

  void on_readable(Client& c, TimeNs now) {
    char buffer[4096];
    const std::size_t room = c.phase == Phase::kHead ? std::min(sizeof buffer, kMaxHeadBytes - c.in.size()) : sizeof buffer;
    const ssize_t n = recv(c.fd.get(), buffer, room, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      c.phase = Phase::kDone;  // the peer closed (or reset): nothing more to say to it
      return;
    }
    if (n < 0 || c.phase != Phase::kHead) return;  // a stream's or a closing connection's bytes are dropped
    c.in.append(buffer, static_cast<std::size_t>(n));
    const ParsedHead head = parse_request_head(c.in, kMaxHeadBytes);
    switch (head.state) {
      case HeadState::kIncomplete: return;
      case HeadState::kBad: return answer(c, error_reply(400, "not an HTTP/1.1 request"), now);
      case HeadState::kTooLarge: return answer(c, error_reply(431, "the request head is over 8 KiB"), now);
      case HeadState::kComplete: break;
    }
    Reply reply = route(head.request, rules_, feed_);
    if (reply.stop_run && on_stop_) on_stop_();
    answer(c, std::move(reply), now);
  }

  void answer(Client& c, Reply reply, TimeNs now) {
    c.in.clear();
    c.out = reply.head + reply.body;
    c.out_sent = 0;
    c.deadline_ns = now + kStallTimeoutNs;
    c.phase = reply.stream_events ? Phase::kStream : Phase::kReply;
    if (reply.stream_events) {
      const std::uint64_t begin = feed_.begin_seq();
      const std::uint64_t end = feed_.end_seq();
      // An id past the end is another run's (a page reconnecting to a new pacer): start over.
      c.next_event = reply.first_event > end ? begin : std::max(reply.first_event, begin);
      fill_stream(c, now);
    }
    write_out(c, now);
  }

  // Queues the events this page has not had (and the end event after the last).
  void fill_stream(Client& c, TimeNs now) {
    // Read first: every interval was published before the final report.
    const LiveFeed::ReportState state = feed_.report_state();
    const std::uint64_t end = feed_.end_seq();
    c.next_event = std::max(c.next_event, feed_.begin_seq());  // fell behind the history kept: skip
    const bool had_output = c.pending();
    while (c.out.size() - c.out_sent < kStreamQueueBytes && c.next_event < end) {
      if (auto event = feed_.event(c.next_event)) c.out += format_event(c.next_event, event->json, event->name);
      ++c.next_event;
    }
    if (state.final && c.next_event >= end && !c.end_queued) {
      c.out += format_end_event(*state.json);
      c.end_queued = true;
    }
    if (!c.pending() && now - c.last_write_ns >= kKeepAliveCommentNs) c.out += ": keep-alive\n\n";
    if (!had_output && c.pending()) c.deadline_ns = now + kStallTimeoutNs;
    if (c.pending()) write_out(c, now);
    if (!c.pending()) c.deadline_ns = now + kStallTimeoutNs;  // waiting for figures is not stalling
  }

  void write_out(Client& c, TimeNs now) {
    while (c.pending()) {
      const ssize_t n = send(c.fd.get(), c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
      if (n <= 0) {
        c.phase = Phase::kDone;
        return;
      }
      c.out_sent += static_cast<std::size_t>(n);
      c.deadline_ns = now + kStallTimeoutNs;
      c.last_write_ns = now;
    }
    c.out.clear();
    c.out_sent = 0;
    if (c.phase == Phase::kReply || (c.phase == Phase::kStream && c.end_queued)) {
      shutdown(c.fd.get(), SHUT_WR);  // the reply is whole; close once the peer has read it
      c.phase = Phase::kClosing;
      c.deadline_ns = now + kCloseWaitNs;
    }
  }

  int listener_;
  int stop_fd_;
  const AccessRules& rules_;
  const LiveFeed& feed_;
  const std::function<void()>& on_stop_;
  const std::atomic<TimeNs>& flush_until_ns_;
  std::vector<std::unique_ptr<Client>> clients_;
};

Result<UniqueFd> listen_on(const std::string& host, std::uint16_t port, std::uint16_t& bound_port) {
  const std::string where = host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port)
                                                                 : fmt::format("{}:{}", host, port);
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return bad_argument(fmt::format("--web: cannot listen on {}: {}", where, gai_strerror(rc)));
  }
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> owned(found, &freeaddrinfo);
  UniqueFd fd(socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  const int one = 1;
  if (!fd.valid() || setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      bind(fd.get(), found->ai_addr, found->ai_addrlen) != 0 || listen(fd.get(), 64) != 0) {
    return bad_argument(fmt::format("--web: cannot listen on {}: {}", where, std::strerror(errno)));
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &length);
  bound_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                 : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return fd;
}

}  // namespace

bool is_loopback_address(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

Result<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& host, std::uint16_t port, AccessRules rules,
                                                      const LiveFeed& feed, std::function<void()> on_stop) {
  std::uint16_t bound_port = 0;
  auto listener = listen_on(host, port, bound_port);
  if (!listener) return listener.error();
  rules.cookie_name = fmt::format("pacer_token_{}", bound_port);
  std::unique_ptr<HttpServer> server(
      new HttpServer(std::move(*listener), bound_port, std::move(rules), feed, std::move(on_stop)));
  server->thread_ = thread_leaving_stop_signals([s = server.get()] { s->loop(); });
  return server;
}

HttpServer::HttpServer(UniqueFd listener, std::uint16_t port, AccessRules rules, const LiveFeed& feed,
                       std::function<void()> on_stop)
    : listener_(std::move(listener)),
      port_(port),
      rules_(std::move(rules)),
      feed_(feed),
      on_stop_(std::move(on_stop)),
      stop_event_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

HttpServer::~HttpServer() { stop(0); }

void HttpServer::loop() {
  Loop(listener_.get(), stop_event_.get(), rules_, feed_, on_stop_, flush_until_ns_).run();
}

void HttpServer::stop(TimeNs flush_ns) {
  if (!thread_.joinable()) return;
  flush_until_ns_.store(monotonic_now_ns() + std::max<TimeNs>(flush_ns, 1));
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(stop_event_.get(), &one, sizeof one);
  thread_.join();
}

}  // namespace pacer::web
