// count_requests: how many requests a script's bytes hold (pipelining) and
// which of them are HEAD.
#include "engine/drive/worker_script.h"

#include <gtest/gtest.h>

#include <string>

namespace pacer::engine {
namespace {

const std::string kGet = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
const std::string kHead = "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n";
const std::string kPost = "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";

TEST(CountRequests, OneRequestIsOne) {
  auto batch = count_requests(kGet);
  ASSERT_TRUE(batch.ok()) << batch.error().message;
  EXPECT_EQ(batch->count, 1);
  EXPECT_EQ(batch->head_bits, 0u);
}

TEST(CountRequests, ConcatenatedRequestsArePipelinedWithTheirHeadBits) {
  auto batch = count_requests(kGet + kHead + kPost + kHead);
  ASSERT_TRUE(batch.ok()) << batch.error().message;
  EXPECT_EQ(batch->count, 4);
  EXPECT_EQ(batch->head_bits, 0b1010u);
}

TEST(CountRequests, GarbageEmptyAndIncompleteBytesAreErrors) {
  EXPECT_FALSE(count_requests("hello world\r\n\r\n").ok());
  EXPECT_FALSE(count_requests("").ok());
  auto cut = count_requests(kPost.substr(0, kPost.size() - 1));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("incomplete"), std::string::npos) << cut.error().message;
}

TEST(CountRequests, MoreThanTheParserCanMatchIsAnError) {
  std::string many;
  for (int i = 0; i < proto::ResponseParser::kMaxOutstanding; ++i) many += kGet;
  ASSERT_TRUE(count_requests(many).ok());
  EXPECT_FALSE(count_requests(many + kGet).ok());
}

TEST(NameFromRequestBytes, IsMethodAndPathWithoutTheQuery) {
  std::string name;
  name_from_request_bytes("GET /item?id=3 HTTP/1.1\r\nHost: x\r\n\r\n", name);
  EXPECT_EQ(name, "GET /item");
  name_from_request_bytes(kPost, name);
  EXPECT_EQ(name, "POST /p");
  name_from_request_bytes("garbage", name);
  EXPECT_EQ(name, "(unnamed)");
}

}  // namespace
}  // namespace pacer::engine
