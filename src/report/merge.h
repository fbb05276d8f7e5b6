// Combines the reports of the shards of one load test (processes on several
// machines, each running part of it) into one exact report: counts are summed
// (checked: a sum past 2^64 - 1 is refused, never wrapped) and histograms merged
// bucket by bucket, so merged percentiles are those of all the samples together
// (never an average of percentiles). Pure; main thread.
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::report {

// Shards whose start times differ by more than this are flagged (--start-tolerance).
inline constexpr TimeNs kDefaultStartToleranceNs = kNsPerS;

struct MergeRules {
  bool force = false;          // merge reports of differing settings, or one shard twice
  bool allow_missing = false;  // merge an incomplete set of shards (and say so)
  TimeNs start_tolerance_ns = kDefaultStartToleranceNs;
};

// names[i] names shards[i] in messages (the file it came from). The merged report
// takes its configuration from shards[0]; threads, connections, -n and the target
// rate are summed, the measured duration is the longest shard's, the start the
// earliest. Refused with kBadInput, naming the files and the field:
// - unless rules.force, shards whose settings differ (url, method, load model,
//   timeout, keep-alive, duration, rates, stages, arrival, shard count, the whole
//   test's connections and -n), and two reports of the same --shard index;
// - unless rules.allow_missing, a set lacking shards (naming their indexes);
// - a sum past 2^64 - 1 (or a histogram count past 2^63 - 1), and histograms of
//   different layouts.
// A complete set gives shard 0 of 1 (the whole run); an incomplete one keeps the
// shard count, covers the shards present (rates judged against theirs) and lists
// the missing ones in `merge`. `merge` also holds the spread of the shards' start
// times. No shards is kBadArgument.
Result<RunReport> merge_reports(const std::vector<RunReport>& shards, const std::vector<std::string>& names,
                                const MergeRules& rules);

}  // namespace pacer::report
