// Http1Session with several prebuilt requests (--targets): each token sends the
// request it was submitted with, a pipelined batch mixing them is one write
// gathered in the session's own buffer, and a HEAD among them is matched as one.
#include "proto/http1_session.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace pacer::proto {
namespace {

constexpr std::string_view kA = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
constexpr std::string_view kB = "HEAD /bb HTTP/1.1\r\nHost: x\r\n\r\n";

struct Recorder final : SessionEvents {
  std::vector<std::pair<std::uint32_t, int>> responses;
  void on_response(std::uint32_t token, int status) override { responses.emplace_back(token, status); }
  void on_request_failed(std::uint32_t, RequestFailure) override { ADD_FAILURE(); }
};

struct TwoRequests {
  std::string a_repeated = std::string(kA) + std::string(kA) + std::string(kA);
  std::string b_repeated = std::string(kB) + std::string(kB) + std::string(kB);
  std::array<Http1Bytes, 2> requests{Http1Bytes{kA, a_repeated, false}, Http1Bytes{kB, b_repeated, true}};
};

TEST(Http1SessionTargets, APipelinedBatchOfDifferentRequestsIsGatheredIntoOneWrite) {
  TwoRequests r;
  Http1Session s(r.requests, 3, nullptr);
  s.reset();
  s.submit(0, 0);
  s.submit(1, 1);
  s.submit(2, 0);
  const auto out = s.pending_output();
  EXPECT_EQ(std::string(out.data(), out.size()), std::string(kA) + std::string(kB) + std::string(kA));
  s.consume(out.size());
  EXPECT_TRUE(s.pending_output().empty());
  // The HEAD's response has no body although it announces one.
  const std::string responses = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
                                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                                "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n";
  Recorder events;
  ASSERT_TRUE(s.receive(responses.data(), responses.size(), events));
  const std::vector<std::pair<std::uint32_t, int>> expected{{0, 200}, {1, 200}, {2, 201}};
  EXPECT_EQ(events.responses, expected);
}

TEST(Http1SessionTargets, APartialWriteOfAMixedBatchResumesInsideTheRightRequest) {
  TwoRequests r;
  Http1Session s(r.requests, 3, nullptr);
  s.reset();
  s.submit(0, 1);
  s.submit(1, 0);
  std::string written;
  auto out = s.pending_output();
  written.append(out.data(), kB.size() + 5);  // all of B and 5 bytes of A
  s.consume(kB.size() + 5);
  out = s.pending_output();
  written.append(out.data(), out.size());
  s.consume(out.size());
  EXPECT_EQ(written, std::string(kB) + std::string(kA));
  EXPECT_TRUE(s.pending_output().empty());
}

TEST(Http1SessionTargets, QueuedRequestsOfOneTargetAreOneViewIntoItsRepeatedBytes) {
  TwoRequests r;
  Http1Session s(r.requests, 3, nullptr);
  s.reset();
  s.submit(0, 1);
  s.submit(1, 1);
  const auto out = s.pending_output();
  EXPECT_EQ(out.data(), r.b_repeated.data());  // no copy
  EXPECT_EQ(out.size(), 2 * kB.size());
}

TEST(Http1SessionTargets, ARequestLargerThanTheGatherBufferIsWrittenFromItsOwnBytes) {
  const std::string big = "POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n" + std::string(20000, 'b');
  const std::array<Http1Bytes, 2> requests{Http1Bytes{big, big, false}, Http1Bytes{kA, kA, false}};
  Http1Session s(requests, 2, nullptr);
  s.reset();
  s.submit(0, 0);
  s.submit(1, 1);
  const auto first = s.pending_output();
  EXPECT_EQ(first.data(), big.data());  // not copied
  std::string written;
  for (auto out = first; !out.empty(); out = s.pending_output()) {
    written.append(out.data(), out.size());
    s.consume(out.size());
  }
  EXPECT_EQ(written, big + std::string(kA));
}

// An engine may still be sending one connection's batch (io_uring queues sends)
// while another connection gathers its own: the bytes must not be shared.
TEST(Http1SessionTargets, EachSessionGathersIntoItsOwnBuffer) {
  TwoRequests r;
  Http1Session one(r.requests, 3, nullptr);
  Http1Session two(r.requests, 3, nullptr);
  one.reset();
  two.reset();
  one.submit(0, 0);
  one.submit(1, 1);
  two.submit(0, 1);
  two.submit(1, 0);
  const auto first = one.pending_output();
  const std::string expected = std::string(kA) + std::string(kB);
  ASSERT_EQ(std::string(first.data(), first.size()), expected);
  const auto second = two.pending_output();  // not yet consumed: `first` must still hold its bytes
  EXPECT_EQ(std::string(second.data(), second.size()), std::string(kB) + std::string(kA));
  EXPECT_EQ(std::string(first.data(), first.size()), expected);
}

}  // namespace
}  // namespace pacer::proto
