// Fuzz target: the JSON report reader behind `pacer merge` (report/json_reader),
// then what merge does with what it read: the text, JSON and .hgrm renderings
// and merge_reports of the report with a copy of itself as another shard.
//
// Invariants beyond "no crash" (and no UB: signed overflow, bad casts):
//   - a refusal names the source ("fuzz.json") in its message;
//   - an accepted report renders to JSON that reads back, and rendering that
//     again gives the same text (render_json o read_json_report is a fixed point
//     after one round);
//   - merging the report with itself either is refused with a message or gives
//     a report whose JSON reads back.
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "report/hgrm.h"
#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"
#include "report/text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto report = pacer::report::read_json_report(text, "fuzz.json");
  if (!report) {
    FUZZ_CHECK(report.error().message.find("fuzz.json") != std::string::npos);
    return 0;
  }
  const std::string json = pacer::report::render_json(*report);
  const auto back = pacer::report::read_json_report(json, "rendered.json");
  if (!back) std::fprintf(stderr, "%s\n", back.error().message.c_str());
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(pacer::report::render_json(*back) == json);
  (void)pacer::report::render_text(*report);
  (void)pacer::report::render_hgrm(report->latency, 1e6);

  pacer::report::RunReport second = *report;
  second.shard_index = report->shard_count > 1 ? (report->shard_index + 1) % report->shard_count : 0;
  const auto merged = pacer::report::merge_reports({*report, second}, {"fuzz.json", "copy.json"},
                                                   pacer::report::MergeRules{.force = true, .allow_missing = true});
  if (!merged) {
    FUZZ_CHECK(!merged.error().message.empty());
    return 0;
  }
  const auto merged_back = pacer::report::read_json_report(pacer::report::render_json(*merged), "merged.json");
  if (!merged_back) std::fprintf(stderr, "%s\n", merged_back.error().message.c_str());
  FUZZ_CHECK(merged_back.ok());
  return 0;
}
