// Combines the reports of the shards of one load test (processes on several
// machines, each running part of it) into one exact report: counts are summed and
// histograms merged bucket by bucket, so merged percentiles are those of all the
// samples together (never an average of percentiles). Pure; main thread.
#pragma once

#include <string>
#include <vector>

#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::report {

// names[i] names shards[i] in messages (the file it came from). The merged report
// takes its configuration from shards[0]; threads, connections, -n and the target
// rate are summed, the measured duration is the longest shard's, the start the
// earliest. Unless `force`, shards whose per-shard configuration differs (url,
// method, load model, timeout, keep-alive, duration, rates, stages, arrival, shard
// count) are refused with kBadInput naming both files and the field, and so are
// two reports of the same --shard index. The result is shard 0 of 1 (the whole
// run). No shards is kBadArgument; histograms of different layouts are kBadInput.
Result<RunReport> merge_reports(const std::vector<RunReport>& shards, const std::vector<std::string>& names,
                                bool force);

}  // namespace pacer::report
