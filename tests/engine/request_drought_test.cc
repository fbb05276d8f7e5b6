// RequestDrought (issue 42): a -n scenario whose users make no request ends
// after --give-up, but only when whole tasks went by without one.
#include "engine/drive/request_drought.h"

#include <gtest/gtest.h>

namespace pacer::engine {
namespace {

constexpr TimeNs kPeriod = 300 * kNsPerMs;

TEST(RequestDrought, TasksWithoutARequestForTheWholePeriodEndTheUsersWithAReason) {
  RequestDrought d(true, kPeriod);
  d.request(0, 0);
  EXPECT_EQ(d.next_due_ns(0), kPeriod);
  EXPECT_FALSE(d.check(kPeriod - 1, 50, 3, 0, 5)) << "not before the period";
  EXPECT_TRUE(d.check(kPeriod, 50, 3, 0, 5));
  EXPECT_TRUE(d.gave_up());
  EXPECT_EQ(d.reason(), "scenario: no user made a request for 300ms (--give-up), so -n 5 cannot be reached; "
                        "do its tasks send any?");
  EXPECT_EQ(d.next_due_ns(kPeriod), kNeverNs);
}

TEST(RequestDrought, ALongSleepOrThinkTimeAfterARequestIsNoReason) {
  RequestDrought d(true, kPeriod);
  d.request(0, 0);
  d.request(10, 7);  // a request: the clock and the task count start again
  // Each of the 3 users' task in progress at the request may end after it: 3 tasks are no reason.
  EXPECT_FALSE(d.check(10 + 5 * kPeriod, 10, 3, 0, 5));
  EXPECT_TRUE(d.check(10 + 5 * kPeriod, 11, 3, 0, 5));
}

TEST(RequestDrought, ARequestInFlightOrAnInactiveRuleNeverGivesUp) {
  RequestDrought d(true, kPeriod);
  d.request(0, 0);
  EXPECT_FALSE(d.check(10 * kPeriod, 100, 1, 1, 5)) << "a request on the wire";
  RequestDrought off(false, kPeriod);
  off.request(0, 0);
  EXPECT_FALSE(off.check(10 * kPeriod, 100, 1, 0, 5)) << "-d bounds the run, or no -n";
  EXPECT_EQ(off.next_due_ns(0), kNeverNs);
}

TEST(RequestDrought, PastItsTimeItAsksForNoWakeUp) {
  RequestDrought d(true, kPeriod);
  d.request(0, 0);
  EXPECT_EQ(d.next_due_ns(kPeriod + 1), kNeverNs) << "a wake-up in the past would spin the loop";
}

}  // namespace
}  // namespace pacer::engine
