// The capacity search's objective (issue 41, docs/capacity.md): its grammar,
// "p99<=50ms,errors<=0.1%,server_cpu<=80%", and how one step is judged by it:
// each term's figure, whether it holds, and whether the step was too close to
// the limit for one run to tell (the search then repeats the rate). Pure; main
// thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "capacity/step_figures.h"
#include "core/config.h"
#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::capacity {

// Terms joined by commas: a latency statistic (pNN, mean, max, as --slo), errors
// (a share of the finished requests: 0.1% or 0.001) and server_cpu (CPU time per
// second of the --server-pid processes or the --server-metrics process, 80% = 0.8
// of one CPU, 250% = two and a half), each with < or <=. kBadArgument naming flag.
Result<std::vector<ObjectiveTerm>> parse_objective(std::string_view text, std::string_view flag);

// One term's reading of a step.
struct TermReading {
  std::string text;        // the term as written
  double value = 0;        // ns (latency), a fraction (errors), CPUs (server_cpu)
  bool measured = true;    // false: nothing to read it from (no response; server_cpu not sampled)
  bool holds = false;
  bool near = false;       // one run cannot tell which side of the limit the rate is on
  std::string phrase;      // "p99 62.10ms > 50ms", "errors 0.40% > 0.1%", "server_cpu 92% <= 80%"
};

// The step judged by every term (in the objective's order).
std::vector<TermReading> read_terms(const std::vector<ObjectiveTerm>& terms, const report::RunReport& run,
                                    const StepFigures& figures);

// The step held when every term holds; near when any term is.
bool all_hold(const std::vector<TermReading>& readings);
bool any_near(const std::vector<TermReading>& readings);
// The phrases of the terms that broke, joined ("p99 62.10ms > 50ms; errors 1.20% > 0.1%").
std::string broken_phrase(const std::vector<TermReading>& readings);

// Whether a term needs --server-pid or --server-metrics.
bool needs_server_samples(const std::vector<ObjectiveTerm>& terms);

}  // namespace pacer::capacity
