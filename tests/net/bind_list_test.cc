#include "net/bind_list.h"

#include <gtest/gtest.h>

namespace pacer::net {
namespace {

std::vector<std::string> literals(std::string_view text) {
  auto list = parse_bind_list(text);
  EXPECT_TRUE(list) << (list ? "" : list.error().message);
  std::vector<std::string> out;
  if (list) {
    for (const Address& a : *list) out.push_back(address_literal(a));
  }
  return out;
}

TEST(BindList, OneAddressAListAndARange) {
  EXPECT_EQ(literals("127.0.0.2"), std::vector<std::string>{"127.0.0.2"});
  EXPECT_EQ(literals("127.0.0.2, 127.0.0.5"), (std::vector<std::string>{"127.0.0.2", "127.0.0.5"}));
  EXPECT_EQ(literals("127.0.0.254-127.0.1.1"),
            (std::vector<std::string>{"127.0.0.254", "127.0.0.255", "127.0.1.0", "127.0.1.1"}));
  EXPECT_EQ(literals("10.0.0.1,10.0.0.5-10.0.0.6"), (std::vector<std::string>{"10.0.0.1", "10.0.0.5", "10.0.0.6"}));
}

TEST(BindList, Ipv6RangesCarryAcrossGroups) {
  EXPECT_EQ(literals("fd00::fffe-fd00::1:1"), (std::vector<std::string>{"fd00::fffe", "fd00::ffff", "fd00::1:0", "fd00::1:1"}));
  EXPECT_EQ(literals("[::1]"), std::vector<std::string>{"::1"});
}

TEST(BindList, AddressesHavePortZero) {
  auto list = parse_bind_list("127.0.0.2");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->front().to_string(), "127.0.0.2:0");
}

TEST(BindList, MistakesNameTheEntry) {
  for (const char* bad : {"", "localhost", "127.0.0.9-127.0.0.2", "127.0.0.1-::1", "127.0.0.1,::1", "1.2.3.4,", "1.2.3.4-x"}) {
    auto list = parse_bind_list(bad);
    EXPECT_FALSE(list) << bad;
  }
  auto backwards = parse_bind_list("127.0.0.9-127.0.0.2");
  ASSERT_FALSE(backwards);
  EXPECT_NE(backwards.error().message.find("127.0.0.9-127.0.0.2"), std::string::npos);
  EXPECT_FALSE(parse_bind_list("10.0.0.0-10.1.0.0"));  // past kMaxBindAddresses
}

TEST(BindList, PortRangeCountsBothEnds) {
  EXPECT_EQ((PortRange{32768, 60999}).count(), 28232);
  EXPECT_EQ((PortRange{}).count(), 0);
  EXPECT_GT(local_port_range().count(), 0);
}

}  // namespace
}  // namespace pacer::net
