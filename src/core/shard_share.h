// The part of a whole load test that one report or process covers: one shard
// (--shard i/N), a merge of some shards (pacer merge --allow-missing), or the
// whole test. The one place that says how the test's rates divide (every N-th
// arrival goes to each shard, engine/worker.cc) and how a shard names its part;
// the text report, the JSON, the live view, the progress lines and the time
// series all take the shard's figures from here. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"

namespace pacer {

struct ShardShare {
  int count = 1;                  // shards in the whole test (1: not sharded)
  int index = 0;                  // the shard, when covered == 1
  int covered = 1;                // shards this part holds (1 for a shard; a merge: those merged)
  std::vector<int> missing;       // a merge: the shard indexes it lacks
  int connections = 0;            // this part's and the whole test's -c
  int test_connections = 0;
  std::optional<std::uint64_t> requests;  // this part's and the whole test's -n
  std::optional<std::uint64_t> test_requests;
  LoadModel load_model = LoadModel::kClosed;
  double test_rate_per_s = 0;     // the whole test's rates (a ramp's start, and its end)
  double test_rate_end_per_s = 0;

  bool is_part() const { return count > 1; }
  // This part's share of a whole-test rate (requests/second).
  double rate(double test_rate_per_s_) const { return test_rate_per_s_ * covered / count; }
  // "shard 0 of 3", "shards 0, 1 of 3"; "" for the whole test.
  std::string label() const;
  // "shard 0 of 3: 2000 of 6000 requests/s, 10 of 30 connections"; "" for the whole test.
  std::string describe() const;
};

// A process's part, from its configuration (after cli cut it to the shard).
ShardShare shard_share(const Config& config);

}  // namespace pacer
