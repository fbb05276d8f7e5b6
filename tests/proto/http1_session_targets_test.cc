// Http1Session with several prebuilt requests (--targets): each token sends the
// request it was submitted with, a pipelined batch mixing them is one write
// gathered in the scratch buffer, and a HEAD among them is matched as one.
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
  std::array<char, 1024> scratch{};
  Http1Session s(r.requests, 3, nullptr, scratch);
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
  std::array<char, 1024> scratch{};
  Http1Session s(r.requests, 3, nullptr, scratch);
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
  std::array<char, 1024> scratch{};
  Http1Session s(r.requests, 3, nullptr, scratch);
  s.reset();
  s.submit(0, 1);
  s.submit(1, 1);
  const auto out = s.pending_output();
  EXPECT_EQ(out.data(), r.b_repeated.data());  // no copy
  EXPECT_EQ(out.size(), 2 * kB.size());
}

TEST(Http1SessionTargets, ARequestLargerThanTheScratchBufferIsWrittenFromItsOwnBytes) {
  TwoRequests r;
  std::array<char, 16> scratch{};  // smaller than either request
  Http1Session s(r.requests, 3, nullptr, scratch);
  s.reset();
  s.submit(0, 0);
  s.submit(1, 1);
  std::string written;
  for (auto out = s.pending_output(); !out.empty(); out = s.pending_output()) {
    written.append(out.data(), out.size());
    s.consume(out.size());
  }
  EXPECT_EQ(written, std::string(kA) + std::string(kB));
}

}  // namespace
}  // namespace pacer::proto
