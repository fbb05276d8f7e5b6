// A request named by its response (scenario/response_name.h, issue 42).
#include "scenario/response_name.h"

#include <gtest/gtest.h>

#include <string>

namespace pacer::scenario {
namespace {

proto::ResponseCapture capture_of(std::string body) {
  proto::ResponseCapture c;
  c.fields = std::string("Content-Type\0application/json\0X-Name\0from-header\0", 49);
  c.body = std::move(body);
  return c;
}

TEST(ResponseName, AJsonPointerGivesAStringOrANumberElseNothing) {
  std::string scratch;
  const auto c = capture_of(R"({"item": {"name": "named-1", "id": 7, "tags": ["a"]}, "a/b": "slash"})");
  EXPECT_EQ(response_name(c, NameFrom::kJson, "/item/name", scratch), "named-1");
  EXPECT_EQ(response_name(c, NameFrom::kJson, "/item/id", scratch), "7");
  EXPECT_EQ(response_name(c, NameFrom::kJson, "/a~1b", scratch), "slash");
  EXPECT_EQ(response_name(c, NameFrom::kJson, "/item/tags", scratch), "") << "not a string or a number";
  EXPECT_EQ(response_name(c, NameFrom::kJson, "/missing", scratch), "");
  EXPECT_EQ(response_name(capture_of("not json"), NameFrom::kJson, "/item", scratch), "");
  const std::string long_name(1000, 'x');
  EXPECT_EQ(response_name(capture_of(R"({"n": ")" + long_name + R"("})"), NameFrom::kJson, "/n", scratch).size(),
            kMaxResponseNameBytes);
}

TEST(ResponseName, AHeaderIsMatchedWithoutRegardToCase) {
  std::string scratch;
  EXPECT_EQ(response_name(capture_of("{}"), NameFrom::kHeader, "x-name", scratch), "from-header");
  EXPECT_EQ(response_name(capture_of("{}"), NameFrom::kHeader, "X-Other", scratch), "");
  EXPECT_EQ(response_name(capture_of("{}"), NameFrom::kCall, "x-name", scratch), "");
}

TEST(ResponseName, PointersFollowRfc6901) {
  EXPECT_TRUE(valid_json_pointer(""));
  EXPECT_TRUE(valid_json_pointer("/a/0/~0~1"));
  EXPECT_FALSE(valid_json_pointer("name"));
  EXPECT_FALSE(valid_json_pointer("/a~2"));
  EXPECT_FALSE(valid_json_pointer("/a~"));
}

}  // namespace
}  // namespace pacer::scenario
