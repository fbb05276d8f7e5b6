// A report file's runs (src/report/report_runs.h): a run's report, a --repeat
// report's runs, and the errors that name the file and the field.
#include "report/report_runs.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/json.h"

namespace pacer::report {
namespace {

RunReport run(std::uint64_t responses) {
  RunReport r;
  r.url = "http://127.0.0.1/";
  r.threads = 1;
  r.connections = 2;
  r.measured_ns = kNsPerS;
  r.counters.requests_sent = responses;
  r.counters.responses = responses;
  r.counters.status_counts[200] = responses;
  r.latency.record_n(1000, static_cast<std::int64_t>(responses));
  return r;
}

std::string repeat_text(const std::vector<nlohmann::ordered_json>& runs, double pause_s) {
  nlohmann::ordered_json doc = {{"schema", "pacer-repeat"}, {"version", 1}, {"repeat_pause_s", pause_s}};
  doc["runs"] = runs;
  return doc.dump(2);
}

TEST(ReportRuns, ARunsReportIsOneRunAsTheJsonReaderReadsIt) {
  auto read = read_report_runs(render_json(run(7)), "a.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->repeat);
  ASSERT_EQ(read->runs.size(), 1u);
  EXPECT_EQ(read->runs[0].counters.responses, 7u);
  EXPECT_EQ(render_json(read->runs[0]), render_json(run(7)));
}

TEST(ReportRuns, ARepeatReportIsItsRunsInOrderWithItsPause) {
  auto read = read_report_runs(repeat_text({json_document(run(3)), json_document(run(5))}, 0.25), "r.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->repeat);
  EXPECT_EQ(read->repeat_pause_ns, 250 * kNsPerMs);
  ASSERT_EQ(read->runs.size(), 2u);
  EXPECT_EQ(read->runs[0].counters.responses, 3u);
  EXPECT_EQ(read->runs[1].counters.responses, 5u);
}

TEST(ReportRuns, ErrorsNameTheFileAndWhatIsWrong) {
  const auto message = [](std::string_view text) {
    auto read = read_report_runs(text, "x.json");
    EXPECT_FALSE(read) << text;
    EXPECT_EQ(read ? ErrorKind::kBadInput : read.error().kind, ErrorKind::kBadInput) << text;
    return read ? std::string() : read.error().message;
  };
  EXPECT_NE(message(R"({"schema": "other"})").find("x.json: schema: not a pacer report"), std::string::npos);
  EXPECT_NE(message("not json").find("x.json: not valid JSON"), std::string::npos);
  EXPECT_EQ(message(R"({"schema": "pacer-repeat", "runs": []})"), "x.json: a --repeat report without runs");
  nlohmann::ordered_json broken = json_document(run(2));
  broken["latency"]["histogram"] = "AAAA";
  EXPECT_NE(message(repeat_text({json_document(run(1)), broken}, 0)).find("x.json (run 2): latency.histogram"),
            std::string::npos);
  EXPECT_NE(message(R"({"schema": "pacer-repeat", "repeat_pause_s": "1s", "runs": [{}]})").find("repeat_pause_s"),
            std::string::npos);
}

}  // namespace
}  // namespace pacer::report
