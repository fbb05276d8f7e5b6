// The engine against an HTTP/2 server that ends every connection with a graceful
// GOAWAY after a few requests (as nginx does at keepalive_requests): the
// requests it refused unprocessed are sent again on the next connection, so the
// server processes exactly -n requests and none is lost or counted as an error,
// in -d's drain too. The server is nghttp2's server session over loopback
// sockets, on one thread.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "../support/loopback.h"
#include "../support/run_ok.h"
#include "core/unique_fd.h"

namespace pacer::engine {
namespace {

using SteadyClock = std::chrono::steady_clock;

// One connection's nghttp2 server session: answers 200 to the first
// `per_connection` requests, then a GOAWAY naming the last one it processed.
// With a hold, the requests that come before `hold` has passed since the accept
// wait, and are answered (or refused) together then.
class GoawayConnection {
 public:
  GoawayConnection(UniqueFd fd, int per_connection, std::atomic<int>& processed, SteadyClock::duration hold)
      : fd_(std::move(fd)),
        per_connection_(per_connection),
        processed_(processed),
        release_at_(SteadyClock::now() + hold) {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &GoawayConnection::on_frame_recv);
    nghttp2_session_server_new(&session_, cb, this);
    nghttp2_session_callbacks_del(cb);
    nghttp2_settings_entry streams{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, &streams, 1);
  }
  ~GoawayConnection() { nghttp2_session_del(session_); }
  GoawayConnection(const GoawayConnection&) = delete;
  GoawayConnection& operator=(const GoawayConnection&) = delete;

  int fd() const { return fd_.get(); }
  // Reads what came and writes the answers. False: the peer closed.
  bool serve() {
    char buffer[16384];
    const ssize_t n = ::read(fd_.get(), buffer, sizeof buffer);
    if (n <= 0) return false;
    if (nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(buffer), static_cast<std::size_t>(n)) <
        0) {
      return false;
    }
    return flush();
  }
  // The held requests once the hold has passed. False: the peer closed.
  bool release_due() {
    if (held_.empty() || SteadyClock::now() < release_at_) return true;
    for (const std::int32_t stream : held_) answer(stream);
    held_.clear();
    return flush();
  }

 private:
  bool flush() {
    const std::uint8_t* data = nullptr;
    for (ssize_t out = nghttp2_session_mem_send(session_, &data); out > 0;
         out = nghttp2_session_mem_send(session_, &data)) {
      if (::write(fd_.get(), data, static_cast<std::size_t>(out)) != out) return false;
    }
    return true;
  }
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    auto& self = *static_cast<GoawayConnection*>(user);
    const bool request_done = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                              (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    if (!request_done) return 0;
    if (SteadyClock::now() < self.release_at_) {
      self.held_.push_back(frame->hd.stream_id);
    } else {
      self.answer(frame->hd.stream_id);
    }
    return 0;
  }
  void answer(std::int32_t stream) {
    if (answered_ >= per_connection_) return;  // after the GOAWAY: unprocessed
    static std::uint8_t status_name[] = ":status";
    static std::uint8_t ok[] = "200";
    nghttp2_nv nv{status_name, ok, 7, 3, NGHTTP2_NV_FLAG_NONE};
    nghttp2_submit_response(session_, stream, &nv, 1, nullptr);
    ++processed_;
    if (++answered_ == per_connection_) {
      nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, stream, NGHTTP2_NO_ERROR, nullptr, 0);
    }
  }

  UniqueFd fd_;
  nghttp2_session* session_ = nullptr;
  const int per_connection_;
  int answered_ = 0;
  std::atomic<int>& processed_;
  const SteadyClock::time_point release_at_;
  std::vector<std::int32_t> held_;
};

// Listens on 127.0.0.1 and serves every connection with GoawayConnection until
// destroyed; after `accepts` connections it closes its listener (later connects
// are refused).
class GoawayServer {
 public:
  explicit GoawayServer(int per_connection, SteadyClock::duration hold = {}, int accepts = 1 << 30)
      : per_connection_(per_connection), hold_(hold), accepts_left_(accepts) {
    listener_ = pacer::testing::listen_never_accepting(64, port_);
    thread_ = std::thread([this] { loop(); });
  }
  ~GoawayServer() {
    stop_ = true;
    thread_.join();
  }
  GoawayServer(const GoawayServer&) = delete;
  GoawayServer& operator=(const GoawayServer&) = delete;

  std::uint16_t port() const { return port_; }
  int processed() const { return processed_.load(); }
  int connections() const { return accepted_.load(); }

 private:
  void loop() {
    std::vector<std::unique_ptr<GoawayConnection>> open;
    while (!stop_) {
      std::vector<pollfd> fds{{listener_.get(), POLLIN, 0}};
      for (const auto& c : open) fds.push_back({c->fd(), POLLIN, 0});
      const int ready = ::poll(fds.data(), fds.size(), 5);
      if (ready > 0 && (fds[0].revents & POLLIN) != 0) {
        UniqueFd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (fd.valid()) {
          ++accepted_;
          open.push_back(std::make_unique<GoawayConnection>(std::move(fd), per_connection_, processed_, hold_));
          if (--accepts_left_ == 0) listener_.reset();
        }
      }
      for (std::size_t i = fds.size() - 1; i >= 1; --i) {
        const bool alive = (ready <= 0 || fds[i].revents == 0 || open[i - 1]->serve()) && open[i - 1]->release_due();
        if (!alive) open.erase(open.begin() + static_cast<std::ptrdiff_t>(i - 1));
      }
    }
  }

  const int per_connection_;
  const SteadyClock::duration hold_;
  int accepts_left_;
  UniqueFd listener_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> processed_{0};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

TEST(EngineGoaway, RequestsAGracefulGoawayRefusedAreSentAgainAndNoneIsLost) {
  GoawayServer server(/*per_connection=*/7);
  ASSERT_NE(server.port(), 0);
  Config c = pacer::testing::config_for_port(server.port(), "/");
  c.http2 = true;
  c.streams = 4;  // requests in flight behind the one the GOAWAY names: refused
  c.connections = 2;
  c.request_count = 200;
  c.duration_given = false;
  const report::RunReport r = pacer::testing::run_ok(c);
  EXPECT_EQ(r.counters.responses, 200u);
  EXPECT_EQ(r.counters.requests_sent, 200u);
  EXPECT_EQ(r.counters.errors.goaway, 0u);
  EXPECT_EQ(r.counters.errors.socket_total(), 0u);
  EXPECT_EQ(server.processed(), 200);
  EXPECT_GE(server.connections(), 200 / 7);  // every connection ended with a GOAWAY
}

TEST(EngineGoaway, TheOpenModelResendsRefusedArrivalsWithTheirDueTimes) {
  GoawayServer server(/*per_connection=*/5);
  ASSERT_NE(server.port(), 0);
  Config c = pacer::testing::config_for_port(server.port(), "/");
  c.http2 = true;
  c.streams = 4;
  c.connections = 2;
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = 400;
  c.duration_ns = 500 * kNsPerMs;
  const report::RunReport r = pacer::testing::run_ok(c);
  EXPECT_EQ(r.counters.scheduled, 200u);
  EXPECT_EQ(r.counters.responses, 200u);
  EXPECT_EQ(r.counters.errors.goaway, 0u);
  EXPECT_EQ(server.processed(), 200);
}

// One connection with 4 streams, -d 50 ms: the run ends while the server holds
// the 4 requests it was first sent.
Config ending_before_the_answers(const GoawayServer& server, TimeNs timeout_ns) {
  Config c = pacer::testing::config_for_port(server.port(), "/");
  c.http2 = true;
  c.streams = 4;
  c.connections = 1;
  c.duration_ns = 50 * kNsPerMs;
  c.timeout_ns = timeout_ns;
  return c;
}

// The GOAWAY comes after -d's end: each connection holds the requests it was
// sent for 150 ms, then answers the first and refuses the rest. Those are owed
// an answer (due before the end, never processed): the drain reopens a
// connection for them, once each, until all 4 were answered, with no error.
TEST(EngineGoaway, RequestsAGracefulGoawayRefusedInTheDrainAreSentAgainThere) {
  GoawayServer server(/*per_connection=*/1, std::chrono::milliseconds(150));
  ASSERT_NE(server.port(), 0);
  const report::RunReport r = pacer::testing::run_ok(ending_before_the_answers(server, 5 * kNsPerS));
  EXPECT_EQ(r.counters.responses, 4u);
  EXPECT_EQ(r.counters.requests_sent, 4u);
  EXPECT_EQ(r.counters.errors.socket_total(), 0u);
  EXPECT_EQ(server.processed(), 4);
  EXPECT_EQ(server.connections(), 1 + 4);  // the h2c check's probe; then one answered a connection
}

// The same, but the server accepts no more connections (after the h2c check's
// probe and the run's first): what the drain owes
// cannot be sent again, and ends as `unsent` --timeout after it was due, not as
// `goaway` errors, and not as a drain that never ends.
TEST(EngineGoaway, RequestsRefusedInTheDrainThatCannotBeSentAgainEndUnsentAfterTheTimeout) {
  GoawayServer server(/*per_connection=*/1, std::chrono::milliseconds(150), /*accepts=*/2);
  ASSERT_NE(server.port(), 0);
  const auto started = SteadyClock::now();
  const report::RunReport r = pacer::testing::run_ok(ending_before_the_answers(server, 400 * kNsPerMs));
  EXPECT_LT(SteadyClock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(r.counters.responses, 1u);
  EXPECT_EQ(r.counters.errors.goaway, 0u);
  EXPECT_EQ(r.counters.errors.unsent, 3u);
  EXPECT_EQ(server.processed(), 1);
}

}  // namespace
}  // namespace pacer::engine
