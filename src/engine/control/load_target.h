// The load the workers are asked to run (issue 27), as published to them: a
// user count and spawn rate (the closed model) or a rate (the open model), with
// a generation that grows at each change. The run's LoadControl (main or web
// thread, under its own lock, one writer at a time) publishes; each worker reads
// generation() once per turn (one acquire load) and takes target() (a copy, under
// this lock) only when it moved, so the hot path pays one load.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "scenario/type_mix.h"

namespace pacer::engine {

// What a run's load is: users (POST /users, a shape's), a rate (POST /rate, a
// shape's), or fixed (a closed loop's -c connections).
enum class LoadKind { kUsers, kRate, kFixed };

struct LoadTarget {
  int users = 0;
  scenario::TypeCounts per_type;  // users per type when a change gave them (empty: by the types' rules)
  double spawn_rate_per_s = 0;
  double rate_per_s = 0;  // a rate control's
  std::uint64_t generation = 0;
};

class PublishedTarget {
 public:
  // kind and its bounds never change: ceiling (users), max_rate_per_s (a rate).
  PublishedTarget(LoadKind kind, int ceiling, double max_rate_per_s, LoadTarget first);

  LoadKind kind() const { return kind_; }
  bool is_rate() const { return kind_ == LoadKind::kRate; }
  int ceiling() const { return ceiling_; }
  double max_rate_per_s() const { return max_rate_; }

  // Workers, once per turn: whether anything changed since the generation they took.
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // Any thread: the target as it stands (a copy).
  LoadTarget target() const;
  int users() const;

  // The control, before the run: the first step (a shape's), with no new generation.
  void set_first(LoadTarget first);
  // The control, one writer at a time: the workers see `next` as the next generation.
  void publish(LoadTarget next);

 private:
  const LoadKind kind_;
  const int ceiling_;
  const double max_rate_;
  mutable std::mutex mutex_;
  LoadTarget target_;  // under mutex_
  std::atomic<std::uint64_t> generation_{0};
};

}  // namespace pacer::engine
