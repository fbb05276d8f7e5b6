// An occasional measurement held under its share of one CPU (evidence/cost_budget.h),
// and the interval whose port count it skipped written as null, not as no ports.
#include "evidence/cost_budget.h"

#include <gtest/gtest.h>

#include "evidence/evidence_json.h"

namespace pacer::evidence {
namespace {

constexpr TimeNs kOneMs = kNsPerMs;  // not kMs: saturation_test.cc, in the same unity batch, has its own

TEST(CostBudget, TheFirstMeasurementIsDueAndACostlyOneWaitsCostOverShare) {
  CostBudget b(0.01);
  EXPECT_TRUE(b.due(0));
  b.spent(1000 * kOneMs, 25 * kOneMs);  // a count at 20,000 sockets
  EXPECT_FALSE(b.due(1000 * kOneMs));
  EXPECT_FALSE(b.due(3499 * kOneMs));
  EXPECT_TRUE(b.due(3500 * kOneMs));  // 25 ms / 1 % = 2.5 s later
}

TEST(CostBudget, ACheapMeasurementIsDueAgainWithinAnInterval) {
  CostBudget b(0.01);
  b.spent(1000 * kOneMs, kOneMs / 10);  // a few hundred sockets: 0.1 ms
  EXPECT_FALSE(b.due(1005 * kOneMs));
  EXPECT_TRUE(b.due(1010 * kOneMs));  // every 1 s interval still counts
}

TEST(CostBudget, AnIntervalWithoutAPortCountWritesNullNotAnEmptyList) {
  IntervalEvidence sample;
  sample.process = ProcessSample{};
  sample.process->ports_counted = false;
  EXPECT_TRUE(interval_client_json({}, &sample)["ports"].is_null());
  sample.process->ports_counted = true;  // counted, none in use
  EXPECT_TRUE(interval_client_json({}, &sample)["ports"].is_array());
  sample.process->ports = {{"127.0.0.1", "127.0.0.1:8080", 3}};
  EXPECT_EQ(interval_client_json({}, &sample)["ports"][0]["in_use"], 3);
}

}  // namespace
}  // namespace pacer::evidence
