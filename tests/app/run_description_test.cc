// What --check-args prints and the note for shards nothing starts together
// (src/app/run_description.cc).
#include "app/run_description.h"

#include <gtest/gtest.h>

#include "cli/units.h"

namespace pacer::app {
namespace {

Config sharded(const std::string& source, bool together) {
  Config c;
  c.target = *cli::parse_url("http://example.test/");
  c.connections = 5;
  c.test_connections = 20;  // -c 20, cut to this shard's 5 by cli::parse
  c.shard_index = 2;
  c.shard_count = 4;
  c.shard_source = source;
  c.shard_starts_together = together;
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = 2000;
  c.json_format = true;
  c.output_path = "/reports/shard-2.json";
  return c;
}

TEST(RunDescription, CheckArgsDescribesTheShardLoadStartAndOutputs) {
  const std::int64_t now = 1'796'000'000LL * kNsPerS;
  Config c = sharded("JOB_COMPLETION_INDEX", false);
  c.start_at_unix_ns = now + 180 * kNsPerS;
  const std::string text = describe_run(c, now);
  EXPECT_NE(text.find("Running 10s test @ http://example.test/\n"), std::string::npos) << text;
  EXPECT_NE(text.find("2 threads and 5 connections (shard 2 of 4 from JOB_COMPLETION_INDEX)"), std::string::npos) << text;
  EXPECT_NE(text.find("Load:    open model, 2000 requests/s in total, uniform arrivals; shard 2 of 4: 500 of 2000 "
                      "requests/s, 5 of 20 connections"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Start:   at 2026-11-30T00:56:20Z (in 180 s)"), std::string::npos) << text;
  EXPECT_NE(text.find("Report:  JSON to /reports/shard-2.json"), std::string::npos) << text;
  EXPECT_EQ(text.find("Note:"), std::string::npos) << text;
}

TEST(RunDescription, ShardsThatDoNotStartTogetherWithoutStartAtGetANote) {
  EXPECT_EQ(unsynchronised_start_note(sharded("JOB_COMPLETION_INDEX", false)),
            "shard 2 of 4 from JOB_COMPLETION_INDEX starts as soon as it is started: that engine does not start its "
            "shards together, so give them one --start-at");
  EXPECT_EQ(unsynchronised_start_note(sharded("SLURM_PROCID", true)), "");
  EXPECT_EQ(unsynchronised_start_note(sharded("", false)), "");  // --shard i/N: the user chose how to start them
  const std::string together = describe_run(sharded("SLURM_PROCID", true), 0);
  EXPECT_NE(together.find("Start:   at once (SLURM_PROCID comes from an engine that starts every shard together)"),
            std::string::npos)
      << together;
}

}  // namespace
}  // namespace pacer::app
