// Monotonic time in nanoseconds (CLOCK_MONOTONIC). Client workers read it at each
// event-loop wake-up and before each send; the server once per wake-up.
#pragma once

#include <cstdint>
#include <ctime>

namespace pacer {

using TimeNs = std::int64_t;  // nanoseconds on CLOCK_MONOTONIC

constexpr TimeNs kNsPerUs = 1'000;
constexpr TimeNs kNsPerMs = 1'000'000;
constexpr TimeNs kNsPerS = 1'000'000'000;

inline TimeNs monotonic_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

}  // namespace pacer
