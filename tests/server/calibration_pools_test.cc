// Unit tests of the /pool route's virtual pools: the ring's assignment against a
// brute-force earliest-free search, the bound on distinct pools, and threads
// sharing one pool. No sockets, no clock.
#include "server/calibration_pools.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <thread>
#include <vector>

namespace pacer::server {
namespace {

// The definition the ring must meet: each request, in arrival order, takes the
// worker free earliest, starts at max(arrival, its free time), and takes service_ns.
std::vector<TimeNs> earliest_free_finishes(std::size_t workers, TimeNs service_ns, const std::vector<TimeNs>& arrivals_ns) {
  std::vector<TimeNs> free_ns(workers, 0);
  std::vector<TimeNs> finishes_ns;
  for (const TimeNs arrival_ns : arrivals_ns) {
    const auto earliest = std::min_element(free_ns.begin(), free_ns.end());
    *earliest = std::max(arrival_ns, *earliest) + service_ns;
    finishes_ns.push_back(*earliest);
  }
  return finishes_ns;
}

std::vector<TimeNs> ring_finishes(std::size_t workers, TimeNs service_ns, const std::vector<TimeNs>& arrivals_ns) {
  WorkerRing ring(workers, service_ns);
  std::vector<TimeNs> finishes_ns;
  for (const TimeNs arrival_ns : arrivals_ns) finishes_ns.push_back(ring.assign(arrival_ns));
  return finishes_ns;
}

// Non-decreasing arrivals whose gaps mix bursts (0), gaps shorter than the
// service time and idle stretches longer than all workers' work.
std::vector<TimeNs> random_arrivals(std::mt19937_64& rng, std::size_t count, TimeNs service_ns, std::size_t workers) {
  std::uniform_int_distribution<int> kind(0, 3);
  std::uniform_int_distribution<TimeNs> short_gap(0, service_ns);
  std::uniform_int_distribution<TimeNs> long_gap(0, 3 * service_ns * static_cast<TimeNs>(workers));
  std::vector<TimeNs> arrivals_ns;
  TimeNs at_ns = 1;
  for (std::size_t i = 0; i < count; ++i) {
    switch (kind(rng)) {
      case 0: break;
      case 1:
      case 2: at_ns += short_gap(rng); break;
      default: at_ns += long_gap(rng); break;
    }
    arrivals_ns.push_back(at_ns);
  }
  return arrivals_ns;
}

TEST(WorkerRing, AssignsEveryRequestAsTheEarliestFreeWorkerWouldOverRandomArrivals) {
  std::mt19937_64 rng(41);
  for (const std::size_t workers : std::initializer_list<std::size_t>{1, 2, 3, 4, 7, 16, 100}) {
    for (const TimeNs service_ns : {TimeNs{1}, TimeNs{25}, 10 * kNsPerMs}) {
      for (int round = 0; round < 20; ++round) {
        const std::vector<TimeNs> arrivals_ns = random_arrivals(rng, 500, service_ns, workers);
        ASSERT_EQ(ring_finishes(workers, service_ns, arrivals_ns), earliest_free_finishes(workers, service_ns, arrivals_ns))
            << workers << " workers, " << service_ns << " ns, round " << round;
      }
    }
  }
}

TEST(WorkerRing, ServesABurstAtTheCapacityOfItsWorkers) {
  // 4 workers of 25 ms: 160 requests per second. Ten at once finish 4 at 25 ms,
  // 4 at 50 ms, 2 at 75 ms.
  WorkerRing ring(4, 25 * kNsPerMs);
  std::vector<TimeNs> finishes_ms;
  for (int i = 0; i < 10; ++i) finishes_ms.push_back(ring.assign(0) / kNsPerMs);
  EXPECT_EQ(finishes_ms, (std::vector<TimeNs>{25, 25, 25, 25, 50, 50, 50, 50, 75, 75}));
}

TEST(WorkerRing, UniformArrivalsBelowCapacityWaitExactlyTheServiceTime) {
  // 4 workers of 10 ms take 400/s; at 300/s nobody queues (a D/D/4 queue).
  WorkerRing ring(4, 10 * kNsPerMs);
  const TimeNs gap_ns = kNsPerS / 300;
  for (TimeNs i = 1; i <= 1000; ++i) ASSERT_EQ(ring.assign(i * gap_ns), i * gap_ns + 10 * kNsPerMs) << i;
}

TEST(WorkerRing, ArrivalEarlierThanOneAlreadyServedIsTakenAsArrivingWithIt) {
  // Two threads' clocks: the second request was read 5 ns sooner but came second.
  WorkerRing ring(2, 100);
  EXPECT_EQ(ring.assign(1000), 1100);
  EXPECT_EQ(ring.assign(995), 1100);   // starts with it, not before it
  EXPECT_EQ(ring.assign(990), 1200);   // FIFO: behind both
  EXPECT_EQ(ring.assign(1300), 1400);  // idle again: no queue
}

TEST(CalibrationPools, KeepsOnePoolPerWorkersAndServiceTime) {
  CalibrationPools pools(8);
  EXPECT_EQ(pools.finish_ns(1, 10, 0), 10);
  EXPECT_EQ(pools.finish_ns(1, 10, 0), 20);  // the same pool: queued
  EXPECT_EQ(pools.finish_ns(2, 10, 0), 10);  // another W: its own pool
  EXPECT_EQ(pools.finish_ns(1, 20, 0), 20);  // another MS: its own pool
  EXPECT_EQ(pools.finish_ns(1, 10, 0), 30);
}

TEST(CalibrationPools, RefusesAPoolPastItsLimitButServesTheOnesItHas) {
  CalibrationPools pools(3);
  for (std::size_t workers = 1; workers <= 3; ++workers) EXPECT_TRUE(pools.finish_ns(workers, 5, 0)) << workers;
  EXPECT_EQ(pools.finish_ns(4, 5, 0), std::nullopt);
  EXPECT_EQ(pools.finish_ns(1, 6, 0), std::nullopt);
  EXPECT_EQ(pools.finish_ns(1, 5, 0), 10);  // its one worker is busy until 5
}

TEST(CalibrationPools, ThreadsSharingAPoolGetEachPlaceOnce) {
  // 4 threads x 300 requests at once into 3 workers of 10 ns: exactly 3 finish at
  // each multiple of 10 ns, whoever took which place.
  CalibrationPools pools(kMaxCalibrationPools);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 300;
  std::vector<std::vector<TimeNs>> finishes_ns(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&pools, &out = finishes_ns[static_cast<std::size_t>(t)]] {
      for (int i = 0; i < kPerThread; ++i) out.push_back(*pools.finish_ns(3, 10, 0));
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<TimeNs> all_ns;
  for (const auto& one : finishes_ns) all_ns.insert(all_ns.end(), one.begin(), one.end());
  std::sort(all_ns.begin(), all_ns.end());
  ASSERT_EQ(all_ns.size(), std::size_t{kThreads * kPerThread});
  for (std::size_t i = 0; i < all_ns.size(); ++i) ASSERT_EQ(all_ns[i], static_cast<TimeNs>(i / 3 + 1) * 10) << i;
}

}  // namespace
}  // namespace pacer::server
