// The search's live progress document (src/capacity/progress_json.h).
#include "capacity/progress_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "capacity/objective.h"
#include "capacity/result_json.h"

namespace pacer::capacity {
namespace {

CapacityResult two_steps() {
  CapacityResult r;
  r.url = "http://127.0.0.1:8080/";
  r.objective_text = "p99<=20ms";
  r.terms = *parse_objective(r.objective_text, "--capacity");
  r.setup.step_duration_ns = 500'000'000;
  r.setup.step_warmup_ns = 200'000'000;
  r.setup.step_repeat = 3;
  for (int i = 1; i <= 2; ++i) {
    Step s;
    s.index = i;
    s.figures.target_rate_per_s = 100.0 * i;
    s.figures.achieved_rate_per_s = 99.5 * i;
    s.figures.p99_ns = 5'000'000 * i;
    s.figures.requests = 50 * i;
    s.verdict = i == 1 ? Verdict::kHolds : Verdict::kBreaks;
    s.broken_by = i == 1 ? "" : "p99 10ms > 20ms";
    r.steps.push_back(s);
  }
  return r;
}

TEST(ProgressJson, SaysTheRunningStepAndTheStepsDoneWithoutTheirRuns) {
  const CapacityResult r = two_steps();
  const std::string text = render_progress_json(r, RunningStep{3, 150});
  EXPECT_EQ(text.find('\n'), std::string::npos);  // one line: a Server-Sent Event's data
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema"], "pacer-capacity-progress");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["mode"], "search");
  EXPECT_EQ(doc["state"], "running");
  EXPECT_EQ(doc["objective"], "p99<=20ms");
  EXPECT_EQ(doc["terms"][0]["text"], "p99<=20ms");
  EXPECT_DOUBLE_EQ(doc["settings"]["step_duration_s"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(doc["settings"]["step_warmup_s"].get<double>(), 0.2);
  EXPECT_EQ(doc["running"]["index"], 3);
  EXPECT_EQ(doc["running"]["kind"], "step");
  EXPECT_DOUBLE_EQ(doc["running"]["target_rate_per_s"].get<double>(), 150);
  ASSERT_EQ(doc["steps"].size(), 2u);
  EXPECT_EQ(doc["steps"][1]["verdict"], "breaks");
  EXPECT_EQ(doc["steps"][1]["broken_by"], "p99 10ms > 20ms");
  EXPECT_FALSE(doc["steps"][1].contains("run"));
  EXPECT_TRUE(doc["result"].is_null());
  // Each step's entry is the search's JSON's, less its run.
  auto full = nlohmann::json::parse(render_capacity_json(r));
  for (auto& step : full["steps"]) step.erase("run");
  EXPECT_EQ(doc["steps"], full["steps"]);
}

TEST(ProgressJson, ProbeBetweenStepsAndTheFinishedSearchsResult) {
  CapacityResult r = two_steps();
  EXPECT_EQ(nlohmann::json::parse(render_progress_json(r, RunningStep{1, 0}))["running"]["kind"], "probe");
  EXPECT_TRUE(nlohmann::json::parse(render_progress_json(r, std::nullopt))["running"].is_null());
  r.sweep = true;
  const std::string result = render_capacity_json(r);
  const auto doc = nlohmann::json::parse(render_progress_json(r, std::nullopt, result));
  EXPECT_EQ(doc["mode"], "sweep");
  EXPECT_EQ(doc["state"], "finished");
  EXPECT_EQ(doc["result"], nlohmann::json::parse(result));
}

}  // namespace
}  // namespace pacer::capacity
