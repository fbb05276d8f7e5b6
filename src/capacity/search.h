// The capacity search's choice of rates (issue 41, docs/capacity.md): an
// exponential climb from the start rate until a step breaks the objective (a
// descent when the first one already breaks), then a bisection between the
// highest rate that held and the lowest that broke until the bracket is within
// the precision. A rate near the objective's limit is run again, up to
// max_runs times, and holds only when every run held; a step the client
// limited ends the search. Pure: the app runs the steps and reports each
// verdict here (app/capacity_run.h); tests drive it with made-up verdicts.
#pragma once

#include <optional>
#include <string>

namespace pacer::capacity {

enum class Verdict { kHolds, kBreaks, kClient, kMeasured };

// One run's verdict at the rate next_rate() asked for.
struct StepVerdict {
  Verdict verdict = Verdict::kHolds;
  bool near = false;          // too close to a limit for one run to tell
  std::string broken_by;      // kBreaks: the terms that broke ("p99 62.10ms > 50ms")
  std::string client_limit;   // kClient: what limited pacer, and what to change
};

enum class Outcome {
  kSearching,      // not done yet
  kFound,          // a bracket within the precision
  kClientLimited,  // a step was capped by pacer, not the server: no capacity figure
  kNoRateHeld,     // down to the lowest rate, and it broke
  kNeverBroke,     // up to the highest rate pacer schedules, and it held
};

struct SearchSettings {
  double start_rate_per_s = 100;
  double precision = 0.03;      // done when breaks_at / holds_at - 1 is at most this
  int max_runs = 3;             // runs of a rate near the limit
  double factor = 2;            // the climb's and the descent's step
  double min_rate_per_s = 1;    // the descent's floor
  double max_rate_per_s = 10e6; // the climb's ceiling (cli::kMaxRatePerProcess)
};

class Search {
 public:
  explicit Search(const SearchSettings& settings);

  // The rate of the next step; nullopt once done.
  std::optional<double> next_rate() const;
  // Which run of that rate it is (1-based), and whether it repeats an earlier one.
  int next_run() const { return runs_at_rate_ + 1; }
  void record(const StepVerdict& verdict);

  Outcome outcome() const { return outcome_; }
  std::optional<double> holds_at() const { return holds_at_; }
  std::optional<double> breaks_at() const { return breaks_at_; }
  const std::string& broken_by() const { return broken_by_; }  // at breaks_at
  const std::string& client_limit() const { return client_limit_; }

 private:
  void choose_next();

  SearchSettings settings_;
  double rate_ = 0;
  int runs_at_rate_ = 0;
  Outcome outcome_ = Outcome::kSearching;
  std::optional<double> holds_at_;
  std::optional<double> breaks_at_;
  std::string broken_by_;
  std::string client_limit_;
};

// A rate rounded to what people read: whole numbers from 100/s on, tenths below.
double round_rate(double per_s);

}  // namespace pacer::capacity
