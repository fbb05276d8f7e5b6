// Http2Session (src/proto/http2_session.cc) against a real nghttp2 server
// session, both in memory: bytes are pumped from one to the other, no socket.
#include "proto/http2_session.h"

#include <gtest/gtest.h>

#include <nghttp2/nghttp2.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../support/cli_args.h"

namespace pacer::proto {
namespace {

// What the fake server does with each request it receives completely.
enum class Answer { k200, k503, kReset, kNothing };

// An nghttp2 server session answering every request with `answer`.
class FakeServer {
 public:
  explicit FakeServer(Answer answer) : answer_(answer) {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &FakeServer::on_frame_recv);
    nghttp2_session_callbacks_set_on_header_callback(cb, &FakeServer::on_header);
    nghttp2_session_server_new(&session_, cb, this);
    nghttp2_session_callbacks_del(cb);
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, nullptr, 0);
  }
  ~FakeServer() { nghttp2_session_del(session_); }
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  nghttp2_session* session() { return session_; }
  int requests = 0;
  std::map<std::string, std::string> last_headers;
  std::string status;  // when set, the :status of every answer (k200 and k503 only)

  // Moves bytes both ways until neither side has anything to say.
  void pump(Session& client, SessionEvents& events) {
    for (int round = 0; round < 100; ++round) {
      bool moved = false;
      for (auto out = client.pending_output(); !out.empty(); out = client.pending_output()) {
        ASSERT_GE(nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(out.data()), out.size()), 0);
        client.consume(out.size());
        moved = true;
      }
      const std::uint8_t* data = nullptr;
      for (ssize_t n = nghttp2_session_mem_send(session_, &data); n > 0; n = nghttp2_session_mem_send(session_, &data)) {
        ASSERT_TRUE(client.receive(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n), events));
        moved = true;
      }
      if (!moved) return;
    }
  }

 private:
  static int on_header(nghttp2_session*, const nghttp2_frame*, const std::uint8_t* name, std::size_t namelen,
                       const std::uint8_t* value, std::size_t valuelen, std::uint8_t, void* user) {
    static_cast<FakeServer*>(user)->last_headers[std::string(reinterpret_cast<const char*>(name), namelen)] =
        std::string(reinterpret_cast<const char*>(value), valuelen);
    return 0;
  }
  static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    auto& self = *static_cast<FakeServer*>(user);
    const bool request_done = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                              (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    if (!request_done) return 0;
    ++self.requests;
    const std::int32_t id = frame->hd.stream_id;
    static std::uint8_t status_name[] = ":status";
    static std::uint8_t ok[] = "200";
    static std::uint8_t unavailable[] = "503";
    nghttp2_nv nv{status_name, self.answer_ == Answer::k503 ? unavailable : ok, 7, 3, NGHTTP2_NV_FLAG_NONE};
    if (!self.status.empty()) {
      nv.value = reinterpret_cast<std::uint8_t*>(self.status.data());
      nv.valuelen = self.status.size();
    }
    switch (self.answer_) {
      case Answer::k200:
      case Answer::k503: nghttp2_submit_response(session, id, &nv, 1, nullptr); break;
      case Answer::kReset: nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_INTERNAL_ERROR); break;
      case Answer::kNothing: break;
    }
    return 0;
  }

  Answer answer_;
  nghttp2_session* session_ = nullptr;
};

struct Recorder final : SessionEvents {
  std::vector<std::pair<std::uint32_t, int>> responses;
  std::vector<std::pair<std::uint32_t, RequestFailure>> failures;
  void on_response(std::uint32_t token, int status) override { responses.emplace_back(token, status); }
  void on_request_failed(std::uint32_t token, RequestFailure why) override { failures.emplace_back(token, why); }
};

Config config_for(std::vector<std::string> args) {
  args.push_back("http://127.0.0.1:8080/path?q=1");
  auto parsed = pacer::testing::parse_args(args);
  EXPECT_TRUE(parsed.ok());
  return parsed.ok() ? parsed->run : Config{};
}

// A client session for the command line `args` (plus the URL) with `streams`
// slots, reset and ready to submit.
struct Client {
  Client(std::vector<std::string> args, std::uint32_t streams)
      : config(config_for(std::move(args))), request(config), session(request, streams, memory) {
    session.reset();
  }
  Config config;
  Http2Request request;
  H2Memory memory;
  Http2Session session;
};

TEST(Http2Session, TenStreamsOnOneConnectionEachGetTheirOwnResponse) {
  Client c({"--http2", "--streams", "10"}, 10);
  Http2Session& client = c.session;
  EXPECT_EQ(client.capacity(), 10u);
  for (std::uint32_t t = 0; t < 10; ++t) client.submit(t, 0);
  FakeServer server(Answer::k200);
  Recorder events;
  server.pump(client, events);
  EXPECT_EQ(server.requests, 10);
  ASSERT_EQ(events.responses.size(), 10u);
  for (const auto& [token, status] : events.responses) EXPECT_EQ(status, 200) << token;
  EXPECT_EQ(server.last_headers[":path"], "/path?q=1");
  EXPECT_EQ(server.last_headers[":authority"], "127.0.0.1:8080");
  EXPECT_EQ(server.last_headers[":scheme"], "http");
}

// token_of guesses a stream's token from its id (stream id / 2 in a table of
// twice the streams, here 4 places) and checks the guess: stream 9 takes stream 1's
// place while stream 1 is still in flight, and each answer still reaches its own token.
TEST(Http2Session, AStreamWhosePlaceANewerStreamTookIsStillReportedToItsOwnToken) {
  Client c({"--http2", "--streams", "2"}, 2);
  Http2Session& client = c.session;
  FakeServer server(Answer::kNothing);
  Recorder events;
  const auto answer = [&](std::int32_t stream_id) {
    static std::uint8_t name[] = ":status";
    static std::uint8_t value[] = "200";
    nghttp2_nv nv{name, value, 7, 3, NGHTTP2_NV_FLAG_NONE};
    ASSERT_EQ(nghttp2_submit_response(server.session(), stream_id, &nv, 1, nullptr), 0);
    server.pump(client, events);
  };
  client.submit(0, 0);  // stream 1, place 0: in flight until the end
  client.submit(1, 0);  // stream 3
  server.pump(client, events);
  for (std::int32_t stream = 3; stream <= 7; stream += 2) {  // token 1 on streams 3, 5, 7, then 9
    answer(stream);
    ASSERT_EQ(events.responses.size(), static_cast<std::size_t>((stream - 1) / 2));
    EXPECT_EQ(events.responses.back().first, 1u) << stream;
    client.submit(1, 0);
    server.pump(client, events);
  }
  answer(1);  // stream 9 now holds place 0
  ASSERT_EQ(events.responses.size(), 4u);
  EXPECT_EQ(events.responses.back(), (std::pair<std::uint32_t, int>{0, 200}));
  answer(9);
  ASSERT_EQ(events.responses.size(), 5u);
  EXPECT_EQ(events.responses.back(), (std::pair<std::uint32_t, int>{1, 200}));
}

TEST(Http2Session, TenRequestsGoOutAsOneWrite) {
  // nghttp2 hands out one frame at a time; one write per frame was one syscall per request.
  Client c({"--http2", "--streams", "10"}, 10);
  Http2Session& client = c.session;
  for (std::uint32_t t = 0; t < 10; ++t) client.submit(t, 0);
  const auto first = client.pending_output();
  const std::string all(first.data(), first.size());
  client.consume(first.size());
  EXPECT_TRUE(client.pending_output().empty());
  FakeServer server(Answer::k200);
  ASSERT_EQ(nghttp2_session_mem_recv(server.session(), reinterpret_cast<const std::uint8_t*>(all.data()), all.size()),
            static_cast<ssize_t>(all.size()));
  EXPECT_EQ(server.requests, 10);  // preface, SETTINGS and all ten HEADERS frames in one buffer
}

TEST(Http2Session, AStatusComesBackWithItsToken) {
  Client c({"--http2"}, 1);
  Http2Session& client = c.session;
  client.submit(0, 0);
  FakeServer server(Answer::k503);
  Recorder events;
  server.pump(client, events);
  ASSERT_EQ(events.responses.size(), 1u);
  EXPECT_EQ(events.responses[0], (std::pair<std::uint32_t, int>{0, 503}));
}

// Found by fuzzing (http2_session): nghttp2 checks only that :status is three
// digits, and "006" was reported as status 6. As for HTTP/1.1, a status outside
// 100-599 is a malformed response: that request fails, the connection carries on.
TEST(Http2Session, AStatusOutside100To599FailsTheRequestAsMalformed) {
  for (const char* status : {"006", "099", "600", "999"}) {
    Client c({"--http2", "--streams", "2"}, 2);
    Http2Session& client = c.session;
    client.submit(0, 0);
    FakeServer server(Answer::k200);
    server.status = status;
    Recorder events;
    server.pump(client, events);
    EXPECT_TRUE(events.responses.empty()) << status << " reported as " << events.responses[0].second;
    ASSERT_EQ(events.failures.size(), 1u) << status;
    EXPECT_EQ(events.failures[0], (std::pair<std::uint32_t, RequestFailure>{0, RequestFailure::kMalformed}));
    EXPECT_EQ(client.capacity(), 2u);
    server.status = "599";
    client.submit(1, 0);
    server.pump(client, events);
    ASSERT_EQ(events.responses.size(), 1u) << status;
    EXPECT_EQ(events.responses[0], (std::pair<std::uint32_t, int>{1, 599}));
    EXPECT_EQ(events.failures.size(), 1u);
  }
}

TEST(Http2Session, ABodyIsSentWithItsLengthAndUserHeadersLowerCased) {
  // (Connection and the other connection-specific headers are refused by the
  // command line with --http2: tests/cli/input_checks_test.cc.)
  Client c({"--http2", "-b", "hello", "-H", "X-Thing: 1"}, 1);
  Http2Session& client = c.session;
  client.submit(0, 0);
  FakeServer server(Answer::k200);
  Recorder events;
  server.pump(client, events);
  ASSERT_EQ(events.responses.size(), 1u);
  EXPECT_EQ(server.last_headers[":method"], "POST");
  EXPECT_EQ(server.last_headers["content-length"], "5");
  EXPECT_EQ(server.last_headers["x-thing"], "1");
}

TEST(Http2Session, AStreamResetByTheServerFailsOnlyThatRequest) {
  Client c({"--http2", "--streams", "2"}, 2);
  Http2Session& client = c.session;
  client.submit(1, 0);
  FakeServer server(Answer::kReset);
  Recorder events;
  server.pump(client, events);
  ASSERT_EQ(events.failures.size(), 1u);
  EXPECT_EQ(events.failures[0].first, 1u);
  EXPECT_EQ(events.failures[0].second, RequestFailure::kStreamReset);
  EXPECT_EQ(client.capacity(), 2u);  // the connection carries on
}

TEST(Http2Session, AGracefulGoawayRefusesUnprocessedStreamsForRetryAndStopsNewOnes) {
  Client c({"--http2", "--streams", "4"}, 4);
  Http2Session& client = c.session;
  for (std::uint32_t t = 0; t < 3; ++t) client.submit(t, 0);
  FakeServer server(Answer::kNothing);
  Recorder events;
  server.pump(client, events);
  ASSERT_EQ(server.requests, 3);
  // Streams 1, 3, 5 are open; the server says it processed stream 1 only.
  nghttp2_submit_goaway(server.session(), NGHTTP2_FLAG_NONE, 1, NGHTTP2_NO_ERROR, nullptr, 0);
  server.pump(client, events);
  EXPECT_EQ(client.capacity(), 0u);
  ASSERT_EQ(events.failures.size(), 2u);
  for (const auto& [token, why] : events.failures) {
    EXPECT_NE(token, 0u);
    EXPECT_EQ(why, RequestFailure::kRefused);
  }
}

// The io_uring engine's order (issue 18): a send is in flight (its bytes not
// consumed yet), so a request submitted meanwhile waits in nghttp2's queue, with
// its stream id; a graceful GOAWAY arrives before the send completes. nghttp2 then
// never sends that request (it drops it in the next mem_send, where the session
// has no one to tell): it must come back as refused when the GOAWAY is read, not
// stay open until the server's close fails it as "streams open".
TEST(Http2Session, AGracefulGoawayRefusesARequestStillQueuedBehindASendInFlight) {
  Client c({"--http2", "--streams", "4"}, 4);
  Http2Session& client = c.session;
  for (std::uint32_t t = 0; t < 3; ++t) client.submit(t, 0);
  const auto in_flight = client.pending_output();  // the queued send: streams 1, 3, 5
  FakeServer server(Answer::k200);
  ASSERT_EQ(nghttp2_session_mem_recv(server.session(), reinterpret_cast<const std::uint8_t*>(in_flight.data()),
                                     in_flight.size()),
            static_cast<ssize_t>(in_flight.size()));
  client.submit(3, 0);  // stream 7: behind the send in flight, not serialised yet
  // The server answers what it received and ends the connection gracefully.
  nghttp2_submit_goaway(server.session(), NGHTTP2_FLAG_NONE, 5, NGHTTP2_NO_ERROR, nullptr, 0);
  Recorder events;
  const std::uint8_t* data = nullptr;
  for (ssize_t n = nghttp2_session_mem_send(server.session(), &data); n > 0;
       n = nghttp2_session_mem_send(server.session(), &data)) {
    ASSERT_TRUE(client.receive(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n), events));
  }
  EXPECT_EQ(events.responses.size(), 3u);
  ASSERT_EQ(events.failures.size(), 1u);
  EXPECT_EQ(events.failures[0].first, 3u);
  EXPECT_EQ(events.failures[0].second, RequestFailure::kRefused);
  // The send completes; the next output never carries stream 7, and the server's
  // close finds no stream open.
  client.consume(in_flight.size());
  for (auto out = client.pending_output(); !out.empty(); out = client.pending_output()) client.consume(out.size());
  EXPECT_TRUE(client.finish(events)) << client.error_reason();
  EXPECT_EQ(events.failures.size(), 1u);
  EXPECT_EQ(server.requests, 3);
}

TEST(Http2Session, AGoawayWithAnErrorCodeFailsTheStreamsItRefused) {
  Client c({"--http2", "--streams", "2"}, 2);
  Http2Session& client = c.session;
  client.submit(0, 0);
  client.submit(1, 0);
  FakeServer server(Answer::kNothing);
  Recorder events;
  server.pump(client, events);
  nghttp2_submit_goaway(server.session(), NGHTTP2_FLAG_NONE, 0, NGHTTP2_ENHANCE_YOUR_CALM, nullptr, 0);
  server.pump(client, events);
  ASSERT_EQ(events.failures.size(), 2u);
  for (const auto& failure : events.failures) EXPECT_EQ(failure.second, RequestFailure::kGoaway);
}

TEST(Http2Session, ACancelledStreamIsResetAndNeverReported) {
  Client c({"--http2"}, 1);
  Http2Session& client = c.session;
  client.submit(0, 0);
  FakeServer server(Answer::kNothing);
  Recorder events;
  server.pump(client, events);
  EXPECT_TRUE(client.cancel(0));
  server.pump(client, events);
  EXPECT_TRUE(events.responses.empty());
  EXPECT_TRUE(events.failures.empty());
  client.submit(0, 0);  // the token is free again
  server.pump(client, events);
  EXPECT_EQ(server.requests, 2);
}

TEST(Http2Session, StreamsAreCappedByTheServersMaxConcurrentStreams) {
  Client c({"--http2", "--streams", "50"}, 50);
  Http2Session& client = c.session;
  FakeServer server(Answer::k200);
  const nghttp2_settings_entry limit{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 8};
  nghttp2_submit_settings(server.session(), NGHTTP2_FLAG_NONE, &limit, 1);
  Recorder events;
  server.pump(client, events);
  EXPECT_EQ(client.capacity(), 8u);
}

TEST(Http2Session, ManyRequestsReuseThePoolsMemoryInsteadOfAllocating) {
  Client c({"--http2", "--streams", "4"}, 4);
  Http2Session& client = c.session;
  FakeServer server(Answer::k200);
  Recorder events;
  auto run_batches = [&](int batches) {
    for (int b = 0; b < batches; ++b) {
      for (std::uint32_t t = 0; t < 4; ++t) client.submit(t, 0);
      server.pump(client, events);
    }
  };
  run_batches(50);
  const std::uint64_t warmed = c.memory.fresh_blocks();
  run_batches(500);
  EXPECT_EQ(events.responses.size(), 550u * 4);
  EXPECT_LE(c.memory.fresh_blocks(), warmed + 2) << "nghttp2 kept allocating after the warm-up";
}

}  // namespace
}  // namespace pacer::proto
