// The verdicts on the client (evidence/verdict.h): they name the worker and its
// figure, say nothing below the threshold, and give the limits' arithmetic.
#include "evidence/verdict.h"

#include <gtest/gtest.h>

namespace pacer::evidence {
namespace {

WorkerLoad load(double busy) {
  WorkerLoad w;
  w.wall_ns = 10 * kNsPerS;
  w.waited_ns = static_cast<TimeNs>((1 - busy) * 10 * kNsPerS);
  return w;
}

TEST(Verdict, NamesTheBusyWorkerCountingFromOne) {
  RunEvidence run;
  run.workers = {load(0.30), load(0.98)};
  judge_run(run);
  ASSERT_EQ(run.verdicts.size(), 1u);
  EXPECT_TRUE(run.client_bound);
  EXPECT_EQ(run.verdicts[0],
            "the client: worker 2 was busy 98 % of the run; these figures measure pacer, not the server. Use more "
            "threads (-t) or shards.");
}

TEST(Verdict, AdvisesFewerUsersPerThreadOnlyInARunWithUsers) {
  RunEvidence run;
  run.workers = {load(0.98)};
  run.has_users = true;  // a scenario's
  judge_run(run);
  ASSERT_EQ(run.verdicts.size(), 1u);
  EXPECT_NE(run.verdicts[0].find("Use more threads (-t), fewer users per thread, or shards."), std::string::npos);
  run.has_users = false;
  run.workers = {load(0.8)};
  run.lag_busy_intervals = 3;
  judge_run(run);
  ASSERT_EQ(run.verdicts.size(), 1u);
  EXPECT_EQ(run.verdicts[0].find("users"), std::string::npos) << run.verdicts[0];
}

// Issue 43 (2): queued for a CPU a quarter of the run or more, below the busy threshold.
TEST(Verdict, NamesAWorkerQueuedForACpuAQuarterOfTheRunWhateverItsBusyShare) {
  RunEvidence run;
  run.workers = {load(0.3), load(0.88)};
  run.workers[1].runnable_ns = 5'430 * kNsPerMs;  // 54 % of its 10 s
  run.workers[1].cpu_ns = 3 * kNsPerS;           // its thread ran 30 %: 84 % wanted a CPU
  judge_run(run);
  ASSERT_EQ(run.verdicts.size(), 1u);
  EXPECT_TRUE(run.client_bound);
  EXPECT_EQ(run.verdicts[0],
            "the client: worker 2 waited for a CPU 54 % of the run (busy 88 %): other processes compete for this "
            "machine, and these figures measure pacer's machine, not the server. Give pacer CPUs of its own, or use "
            "shards.");
  run.workers[1].runnable_ns = 2 * kNsPerS;  // 20 %: not judged
  judge_run(run);
  EXPECT_TRUE(run.verdicts.empty());
  EXPECT_FALSE(run.client_bound);
  // Queued 57 %, its thread's CPU 20 %: it waited on the server the rest of the
  // run (4 pacer processes on two cores beside their servers): not named.
  run.workers = {load(0.23)};
  run.workers[0].cpu_ns = 2 * kNsPerS;
  run.workers[0].runnable_ns = 5'700 * kNsPerMs;
  judge_run(run);
  EXPECT_TRUE(run.verdicts.empty());
  run.workers[0].runnable_ns = 6'200 * kNsPerMs;  // 20 % + 62 %: it wanted a CPU most of the run
  judge_run(run);
  EXPECT_EQ(run.verdicts.size(), 1u);
}

TEST(Verdict, SaysNothingBelowTheThreshold) {
  RunEvidence run;
  run.workers = {load(0.89), load(0.5)};
  judge_run(run);
  EXPECT_TRUE(run.verdicts.empty());
  EXPECT_FALSE(run.client_bound);
  run.busy_threshold = 0.85;  // --client-busy-threshold 85%
  judge_run(run);
  EXPECT_TRUE(run.client_bound);
}

TEST(Verdict, BlamesTheClientWhenTheLagGrewWhileBusy) {
  RunEvidence run;
  run.workers = {load(0.8)};
  run.lag_busy_intervals = 3;
  judge_run(run);
  ASSERT_EQ(run.verdicts.size(), 1u);
  EXPECT_NE(run.verdicts[0].find("send lag grew in 3 intervals"), std::string::npos);
}

TEST(Verdict, GivesTheArithmeticOfFdsAndPortsNearTheirLimits) {
  RunEvidence run;
  run.workers = {load(0.2)};
  run.peak = ProcessSample{};
  run.peak->open_fds = 950;
  run.peak->fd_limit = 1024;
  run.peak->port_range = 28232;
  run.peak->ports = {{"127.0.0.1", "127.0.0.1:8080", 27000}, {"127.0.0.1", "127.0.0.1:9090", 10}};
  judge_run(run);
  ASSERT_EQ(run.verdicts.size(), 2u);
  EXPECT_FALSE(run.client_bound);  // limits are their own verdicts
  EXPECT_NE(run.verdicts[0].find("950 of the limit of 1024 were open (93 %)"), std::string::npos);
  EXPECT_NE(run.verdicts[1].find("27000 of the 28232 in the range were in use from 127.0.0.1 to 127.0.0.1:8080 (96 %"),
            std::string::npos);
}

TEST(IntervalVerdict, ShortPhrasesForTheProgressLines) {
  ProcessSample p;
  p.open_fds = 10;
  p.fd_limit = 1024;
  const auto v = interval_verdicts({load(0.95), load(0.2)}, p, 0.9, false);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], "the client: worker 1 busy 95 %");
  EXPECT_TRUE(interval_verdicts({load(0.8)}, p, 0.9, false).empty());
  EXPECT_EQ(interval_verdicts({load(0.8)}, p, 0.9, true).at(0), "the client: send lag grows, worker 1 busy 80 %");
}

TEST(WorkerLoad, BusyShareIsTheTimeNotWaiting) {
  WorkerLoad w{1000, 250, 700, 3};
  EXPECT_DOUBLE_EQ(w.busy(), 0.75);
  // io_uring works inside its wait: the thread CPU is then the better lower bound.
  EXPECT_DOUBLE_EQ((WorkerLoad{1000, 900, 600, 0}.busy()), 0.6);
  EXPECT_DOUBLE_EQ(w.cpu_share(), 0.7);
  EXPECT_DOUBLE_EQ(WorkerLoad{}.busy(), 0);
}

}  // namespace
}  // namespace pacer::evidence

namespace pacer::evidence {
namespace {

TEST(Verdict, JudgesNeitherATinyRunNorASpinningOne) {
  RunEvidence run;
  WorkerLoad tiny{5 * kNsPerMs, 0, 5 * kNsPerMs, 0, 0};  // ten requests: all start-up
  run.workers = {tiny};
  judge_run(run);
  EXPECT_TRUE(run.verdicts.empty());
  run.workers = {WorkerLoad{10 * kNsPerS, 0, 10 * kNsPerS, 0, 0}};
  run.spin = true;  // --spin polls: never waiting is the point
  judge_run(run);
  EXPECT_TRUE(run.verdicts.empty());
  EXPECT_TRUE(interval_verdicts(run.workers, std::nullopt, 0.9, false, true).empty());
}

}  // namespace
}  // namespace pacer::evidence
