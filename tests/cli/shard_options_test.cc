#include "cli/shard_options.h"

#include <gtest/gtest.h>

#include "core/shard_share.h"

namespace pacer::cli {
namespace {

TEST(ShardOptions, ShardIsZeroBasedIndexOfCount) {
  Config c;
  ASSERT_TRUE(parse_shard("2/3", "--shard", c).ok());
  EXPECT_EQ(c.shard_index, 2);
  EXPECT_EQ(c.shard_count, 3);
  EXPECT_EQ(parse_shard("3/3", "--shard", c).error().message,
            "--shard: shard 3 of 3 does not exist (i runs from 0 to N-1)");
  EXPECT_EQ(parse_shard("1", "--shard", c).error().message, "--shard: '1' is not i/N (e.g. 0/3: the first of 3 shards)");
  EXPECT_FALSE(parse_shard("a/b", "--shard", c).ok());
  EXPECT_FALSE(parse_shard("0/0", "--shard", c).ok());
}

TEST(ShardOptions, EachShardTakesItsShareOfConnectionsAndRequests) {
  std::uint64_t requests = 0;
  int connections = 0;
  for (int i = 0; i < 3; ++i) {
    Config c;
    c.connections = 10;
    c.request_count = 1000;
    c.shard_index = i;
    c.shard_count = 3;
    ASSERT_TRUE(apply_shard_share(c).ok());
    connections += c.connections;
    requests += *c.request_count;
    EXPECT_EQ(c.connections, i == 0 ? 4 : 3);
  }
  EXPECT_EQ(connections, 10);
  EXPECT_EQ(requests, 1000u);
}

TEST(ShardOptions, TooFewConnectionsForTheShardsIsAnError) {
  Config c;
  c.connections = 2;
  c.shard_index = 0;
  c.shard_count = 3;
  EXPECT_EQ(apply_shard_share(c).error().message, "--shard: 3 shards need at least 3 connections in total, got -c 2");
}

TEST(ShardOptions, StartAtTakesRfc3339OrUnixSecondsAndRefusesThePast) {
  const std::int64_t now = 1'796'000'000LL * kNsPerS;  // 2026-11-30T00:53:20Z
  auto at = parse_start_at("2026-11-30T01:00:00Z", "--start-at", now);
  ASSERT_TRUE(at.ok()) << at.error().message;
  EXPECT_EQ(*at, now + 400 * kNsPerS);
  EXPECT_EQ(*parse_start_at("2026-11-30T01:00:00.250Z", "--start-at", now), now + 400 * kNsPerS + 250 * kNsPerMs);
  EXPECT_EQ(*parse_start_at("1796000010.5", "--start-at", now), now + 10'500 * kNsPerMs);
  EXPECT_EQ(parse_start_at("2026-11-30T00:00:00Z", "--start-at", now).error().message,
            "--start-at: 2026-11-30T00:00:00Z is in the past");
  EXPECT_FALSE(parse_start_at("tomorrow", "--start-at", now).ok());
  EXPECT_FALSE(parse_start_at("2026-13-30T00:00:00Z", "--start-at", now).ok());
}

// Found by fuzzing (cli_values): a time before 1677 overflowed int64
// nanoseconds; it is refused as in the past before any nanosecond arithmetic.
TEST(ShardOptions, StartAtFarInThePastIsRefusedWithoutOverflow) {
  const std::int64_t now = 1'796'000'000LL * kNsPerS;  // 2026-11-30T00:53:20Z
  EXPECT_EQ(parse_start_at("1013-12-31T01:00:00.250Z", "--start-at", now).error().message,
            "--start-at: 1013-12-31T01:00:00.250Z is in the past");
  EXPECT_EQ(parse_start_at("0001-01-01T00:00:00Z", "--start-at", now).error().message,
            "--start-at: 0001-01-01T00:00:00Z is in the past");
}

TEST(ShardOptions, StartAtRefusesDatesThatDoNotExist) {
  const std::int64_t now = 1'796'000'000LL * kNsPerS;  // 2026-11-30T00:53:20Z
  const auto message = [now](const char* text) {
    auto at = parse_start_at(text, "--start-at", now);
    return at.ok() ? std::string("accepted") : at.error().message;
  };
  EXPECT_EQ(message("2026-02-30T00:00:00Z"),
            "--start-at: '2026-02-30T00:00:00Z' is not a valid time: February 2026 has 28 days");
  EXPECT_EQ(message("2026-12-31T24:00:00Z"), "--start-at: '2026-12-31T24:00:00Z' is not a valid time: hour 24 is outside 00-23");
  EXPECT_EQ(message("2026-12-31T12:60:00Z"),
            "--start-at: '2026-12-31T12:60:00Z' is not a valid time: minute 60 is outside 00-59");
  EXPECT_NE(message("2026-12-31T12:00:60Z").find("second 60 is outside 00-59"), std::string::npos);
  EXPECT_NE(message("2026-12-31T12:00:00Z"), "accepted");  // more than 7 days ahead (see below), not a bad date
  EXPECT_NE(message("2026-11-31T12:00:00Z").find("November 2026 has 30 days"), std::string::npos);
  EXPECT_NE(message("2026-00-10T12:00:00Z").find("month 0 is outside 01-12"), std::string::npos);
  EXPECT_NE(message("2026-12-00T12:00:00Z").find("December 2026 has 31 days"), std::string::npos);
  // Leap years, from a "now" early in the year so that they are within reach.
  const std::int64_t jan_2028 = 1'830'297'600LL * kNsPerS;  // 2028-01-01T00:00:00Z
  EXPECT_EQ(*parse_start_at("2028-01-01T00:00:01Z", "--start-at", jan_2028), jan_2028 + kNsPerS);
  const std::int64_t feb_2028 = jan_2028 + 58LL * 86400 * kNsPerS;  // 2028-02-28
  EXPECT_EQ(*parse_start_at("2028-02-29T00:00:00Z", "--start-at", feb_2028), feb_2028 + 86400 * kNsPerS);
  EXPECT_EQ(*parse_start_at("2028-03-01T00:00:00Z", "--start-at", feb_2028), feb_2028 + 2 * 86400 * kNsPerS);
  const std::int64_t feb_2100 = 4'107'456'000LL * kNsPerS;  // 2100-02-28: 2100 is no leap year
  EXPECT_NE(parse_start_at("2100-02-29T00:00:00Z", "--start-at", feb_2100).error().message.find("February 2100 has 28 days"),
            std::string::npos);
  const std::int64_t feb_2000 = 951'696'000LL * kNsPerS;  // 2000-02-28: 2000 is one
  EXPECT_EQ(*parse_start_at("2000-02-29T00:00:00Z", "--start-at", feb_2000), feb_2000 + 86400 * kNsPerS);
  // A leap second is the next second, as Unix time counts it.
  const std::int64_t dec_2026 = 1'798'761'590LL * kNsPerS;  // 2026-12-31T23:59:50Z
  EXPECT_EQ(*parse_start_at("2026-12-31T23:59:60Z", "--start-at", dec_2026), dec_2026 + 10 * kNsPerS);
}

TEST(ShardOptions, StartAtFarAheadIsRefusedWithTheBoundNotCalledThePast) {
  const std::int64_t now = 1'796'000'000LL * kNsPerS;  // 2026-11-30T00:53:20Z
  for (const char* far : {"9999-12-31T23:59:59Z", "2262-04-12T00:00:00Z", "99999999999999999999", "2026-12-08T00:53:21Z"}) {
    auto at = parse_start_at(far, "--start-at", now);
    ASSERT_FALSE(at.ok()) << far;
    EXPECT_NE(at.error().message.find("days ahead; a start may be at most 7 days ahead"), std::string::npos)
        << at.error().message;
  }
  EXPECT_NE(parse_start_at("9999-12-31T23:59:59Z", "--start-at", now).error().message.find("is 2912109 days ahead"),
            std::string::npos);
  EXPECT_TRUE(parse_start_at("2026-12-07T00:53:20Z", "--start-at", now).ok());  // exactly 7 days
  EXPECT_TRUE(parse_start_at("1796604800", "--start-at", now).ok());
  EXPECT_FALSE(parse_start_at("1796604801", "--start-at", now).ok());
  EXPECT_FALSE(parse_start_at("1.2.3", "--start-at", now).ok());
  EXPECT_FALSE(parse_start_at(".", "--start-at", now).ok());
}

TEST(ShardOptions, TheShareKeepsTheWholeTestsFiguresBesideTheShards) {
  Config c;
  c.connections = 30;
  c.request_count = 1000;
  c.shard_index = 2;
  c.shard_count = 3;
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = 6000;
  ASSERT_TRUE(apply_shard_share(c).ok());
  const ShardShare share = shard_share(c);
  EXPECT_EQ(share.describe(), "shard 2 of 3: 2000 of 6000 requests/s, 333 of 1000 requests, 10 of 30 connections");
  EXPECT_EQ(share.rate(6000), 2000);
  Config whole;
  ASSERT_TRUE(apply_shard_share(whole).ok());
  EXPECT_EQ(shard_share(whole).describe(), "");
  EXPECT_EQ(shard_share(whole).rate(6000), 6000);
}

}  // namespace
}  // namespace pacer::cli
