// The start gate's stall rule for connects whose SYN was answered (engine/conn/start_gate.h):
// asked once, then left alone for a stall, without doubling the next redial's wait.
#include "engine/conn/start_gate.h"

#include <gtest/gtest.h>

namespace pacer::engine {
namespace {

TEST(StartGateAnswered, AnAnsweredConnectIsNeverAskedAgainAndItsBackoffDoesNotDouble) {
  StartGate gate;
  gate.arm(2, 0, 10 * kNsPerMs);  // a stall is 40 ms
  ASSERT_TRUE(gate.redial_due(0, 40 * kNsPerMs));
  gate.answered(0);  // the kernel says connected; the engine's report is pending
  EXPECT_FALSE(gate.redial_due(0, 40 * kNsPerMs));  // the next turn does not ask the kernel again
  EXPECT_FALSE(gate.redial_due(0, 80 * kNsPerMs));  // nor one stall later: the worker is slow to read the report
  EXPECT_FALSE(gate.redial_due(0, 10 * StartGate::kMaxHoldNs));
  EXPECT_TRUE(gate.redial_due(1, 40 * kNsPerMs));  // the other connection is its own
  EXPECT_TRUE(gate.redial_due(1, 80 * kNsPerMs));  // unanswered and not redialled: still due
}

}  // namespace
}  // namespace pacer::engine
