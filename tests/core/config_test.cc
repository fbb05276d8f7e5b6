#include "core/config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace pacer {
namespace {

TEST(ConnectionsPerWorker, RemaindersGoToTheFirstWorkers) {
  EXPECT_EQ(connections_per_worker(3, 10), (std::vector<int>{4, 3, 3}));
  EXPECT_EQ(connections_per_worker(4, 10), (std::vector<int>{3, 3, 2, 2}));
  EXPECT_EQ(connections_per_worker(2, 10), (std::vector<int>{5, 5}));
}

TEST(ConnectionsPerWorker, ThreadsAreCappedAtConnections) {
  EXPECT_EQ(connections_per_worker(4, 2), (std::vector<int>{1, 1}));
  EXPECT_EQ(connections_per_worker(8, 1), (std::vector<int>{1}));
}

TEST(ConnectionsPerWorker, TotalIsAlwaysExactlyTheConnectionCount) {
  for (int threads = 1; threads <= 16; ++threads) {
    for (int connections = 1; connections <= 200; ++connections) {
      const std::vector<int> shares = connections_per_worker(threads, connections);
      EXPECT_EQ(std::accumulate(shares.begin(), shares.end(), 0), connections) << threads << "/" << connections;
      const auto [lo, hi] = std::minmax_element(shares.begin(), shares.end());
      EXPECT_LE(*hi - *lo, 1);
      EXPECT_GE(*lo, 1);
    }
  }
}

TEST(TargetHostHeader, PortOnlyWhenNotTheSchemesDefault) {
  Target t;
  t.scheme = "http";
  t.host = "example.test";
  t.port = 80;
  EXPECT_EQ(t.host_header(), "example.test");
  t.port = 8080;
  EXPECT_EQ(t.host_header(), "example.test:8080");
  t.scheme = "https";
  t.port = 443;
  EXPECT_EQ(t.host_header(), "example.test");
  t.host = "::1";
  t.port = 8443;
  EXPECT_EQ(t.host_header(), "[::1]:8443");
}

}  // namespace
}  // namespace pacer
