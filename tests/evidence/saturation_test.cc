// A saturated server told apart from too few connections (evidence/saturation.h).
#include "evidence/saturation.h"

#include <gtest/gtest.h>

namespace pacer::evidence {
namespace {

constexpr double kMs = 1e6;

TEST(Saturation, ServiceTimeGrowingWhileCompletionsStayFlatIsTheServers) {
  Saturation s;
  s.observe(130 * kMs, 196, 240);  // the queue at the server builds
  s.observe(200 * kMs, 200, 240);
  EXPECT_FALSE(s.saturated());     // one rise is not yet a trend
  s.observe(260 * kMs, 200, 240);
  EXPECT_TRUE(s.saturated());
  s.observe(320 * kMs, 199, 240);
  EXPECT_EQ(s.verdict().rfind("the server: saturated at about 199 requests/s: its mean service time grew from "
                              "130.00ms to 320.00ms",
                              0),
            0u)
      << s.verdict();
  EXPECT_EQ(s.phrase(), "the server: saturated at ~199/s, service 130.00ms -> 320.00ms");
}

TEST(Saturation, AFixedServiceTimeWithTooFewConnectionsIsNot) {
  Saturation s;
  for (int i = 0; i < 6; ++i) s.observe(50 * kMs, 40, 100);  // 2 connections x 50 ms: Little's law's case
  EXPECT_FALSE(s.saturated());
  EXPECT_EQ(s.verdict(), "");
}

TEST(Saturation, GrowthWithRisingCompletionsOrAtTheTargetIsNot) {
  Saturation s;
  s.observe(10 * kMs, 100, 1000);  // a ramp: more completions each interval
  s.observe(20 * kMs, 200, 1000);
  s.observe(40 * kMs, 400, 1000);
  EXPECT_FALSE(s.saturated());
  Saturation at_target;
  at_target.observe(10 * kMs, 1000, 1000);
  at_target.observe(30 * kMs, 1000, 1000);
  at_target.observe(60 * kMs, 1000, 1000);
  EXPECT_FALSE(at_target.saturated());
}

}  // namespace
}  // namespace pacer::evidence
