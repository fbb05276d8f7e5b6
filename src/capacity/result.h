// A capacity search or sweep as plain data (issue 41): what was asked, every
// step with its run's whole report, and the answer. The text (capacity/text.h),
// the JSON (capacity/result_json.h) and the page (web/capacity.js, from the
// JSON) all render this; a search's JSON reads back into it, so `pacer report`
// draws what the search printed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "capacity/search.h"
#include "capacity/step_figures.h"
#include "core/clock.h"
#include "core/config.h"
#include "report/run_report.h"

namespace pacer::capacity {

struct Step {
  int index = 0;             // 1-based, in the order run
  bool probe = false;        // the closed-loop probe that picked the start rate
  int repeat = 1;            // run `repeat` of `repeats` at this rate
  int repeats = 1;
  Verdict verdict = Verdict::kMeasured;
  bool near = false;
  std::string broken_by;
  std::string client_limit;
  StepFigures figures;       // step_figures(run)
  report::RunReport run;
};

enum class AnswerKind { kFound, kClientLimited, kNoRateHeld, kNeverBroke, kSweep };

struct Answer {
  AnswerKind kind = AnswerKind::kSweep;
  std::optional<double> holds_at_per_s;   // the highest rate that held (stably)
  std::optional<double> breaks_at_per_s;  // the lowest that broke
  std::string broken_by;                  // the terms that broke at breaks_at
  std::string client_limit;               // kClientLimited: what limited pacer
  bool cut_short = false;                 // Ctrl-C or the budget ended it early
  std::string cut_reason;                 // "Ctrl-C", "SIGTERM", "the time budget (10m)"
  TimeNs elapsed_ns = 0;
};

struct SearchSetup {
  TimeNs step_duration_ns = 0;
  TimeNs step_warmup_ns = 0;
  double precision = 0;
  TimeNs budget_ns = 0;
  int step_repeat = 1;
  bool poisson = false;
  int connections = 0;
  int threads = 0;
  double start_rate_per_s = 0;
  std::string start_from;                 // "given" (-R), "probe", "sweep"
  bool server_sampled = false;            // --server-pid or --server-metrics: the table has a cpu column
};

struct CapacityResult {
  bool sweep = false;
  std::string url;
  std::string command_line;
  std::string objective_text;             // "" for a sweep without one
  std::vector<ObjectiveTerm> terms;
  SearchSetup setup;
  Answer answer;
  std::vector<Step> steps;
};

// Numbers each step's run among the runs at its rate (consecutive steps at one
// target rate): repeat and repeats.
void number_repeats(std::vector<Step>& steps);

// The headline: "holds at 11,800/s, breaks at 12,100/s (p99 62.10ms > 50ms)", or
// what stood in the way of one.
std::string answer_sentence(const Answer& answer, bool has_objective);

// 11,800/s as people read it: thousands separated from 1,000 on, tenths below 100.
std::string rate_text(double per_s);

std::string verdict_name(Verdict v);       // "holds", "breaks", "client", "measured"
std::string answer_kind_name(AnswerKind k);  // "found", "client_limited", ...

}  // namespace pacer::capacity
