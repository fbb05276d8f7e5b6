// The controller's doorbell (engine/loop/doorbell.h): a ring wakes the waiting
// thread at once, a ring made before the wait counts, and without one the wait
// ends at its deadline.
#include "engine/loop/doorbell.h"

#include <gtest/gtest.h>

#include <thread>

namespace pacer::engine {
namespace {

constexpr TimeNs kLongNs = 20 * kNsPerS;  // a wait that ends this late means the ring was lost

TEST(Doorbell, ARingBeforeTheWaitEndsItAtOnce) {
  Doorbell bell;
  bell.ring();
  const TimeNs start = monotonic_now_ns();
  bell.wait_until(start + kLongNs);
  EXPECT_LT(monotonic_now_ns() - start, kLongNs / 2);
}

TEST(Doorbell, WithoutARingTheWaitEndsAtItsDeadline) {
  Doorbell bell;
  const TimeNs start = monotonic_now_ns();
  bell.wait_until(start + 20 * kNsPerMs);
  EXPECT_GE(monotonic_now_ns() - start, 20 * kNsPerMs);
}

TEST(Doorbell, ARingFromAnotherThreadWakesTheWaiterAndIsUsedOnce) {
  Doorbell bell;
  std::thread ringer([&] { bell.ring(); });
  const TimeNs start = monotonic_now_ns();
  bell.wait_until(start + kLongNs);
  EXPECT_LT(monotonic_now_ns() - start, kLongNs / 2);
  ringer.join();
  // The ring was used by that wait: the next one waits for its deadline.
  const TimeNs again = monotonic_now_ns();
  bell.wait_until(again + 10 * kNsPerMs);
  EXPECT_GE(monotonic_now_ns() - again, 10 * kNsPerMs);
}

}  // namespace
}  // namespace pacer::engine
