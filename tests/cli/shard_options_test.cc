#include "cli/shard_options.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pacer::cli
