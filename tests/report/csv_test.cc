// --csv (src/report/csv.h): Locust's columns from the JSON report, exact.
#include "report/csv.h"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/json.h"
#include "report/json_reader.h"

namespace pacer::report {
namespace {

// The files of a run; its report read back (`pacer report RUN.json --csv`) renders
// the very same ones.
std::optional<CsvFiles> csv_of(const RunReport& r) {
  CsvFiles live = render_csv(r);
  auto back = read_json_report(render_json(r), "r.json");
  EXPECT_TRUE(back) << back.error().message;
  if (!back) return std::nullopt;
  const CsvFiles again = render_csv(*back);
  EXPECT_EQ(live.stats, again.stats);
  EXPECT_EQ(live.history, again.history);
  EXPECT_EQ(live.failures, again.failures);
  return live;
}

std::vector<std::vector<std::string>> rows(const std::string& csv) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    out.push_back(cells);
  }
  return out;
}

RunReport sample() {
  RunReport r;
  r.url = "http://127.0.0.1:1/";
  r.threads = 1;
  r.connections = 2;
  r.duration_ns = 2 * kNsPerS;
  r.timeout_ns = kNsPerS;
  r.measured_ns = 2 * kNsPerS;
  r.counters.responses = 100;
  r.counters.status_counts[200] = 90;
  r.counters.status_counts[503] = 10;
  r.counters.errors.status = 10;
  r.counters.errors.timeout = 4;
  r.first_error = "timeout: no response within 1s, \"quoted\"";
  r.latency.record_n(1'000'000, 50);
  r.latency.record_n(2'000'000, 50);
  return r;
}

TEST(Csv, StatsHasLocustsColumnsAndTheAggregatedRow) {
  auto csv = csv_of(sample());
  ASSERT_TRUE(csv);
  const auto t = rows(csv->stats);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0][0], "name");
  EXPECT_EQ(t[0][1], "requests");
  EXPECT_EQ(t[0][3], "median_ms");
  EXPECT_EQ(t[0].back(), "failures_per_s");
  EXPECT_EQ(t[1][0], "Aggregated");
  EXPECT_EQ(t[1][1], "104");  // 100 responses + 4 timeouts
  EXPECT_EQ(t[1][2], "14");   // 10 status >= 400 + 4 timeouts
  EXPECT_EQ(t[1][3], "1.000447");  // the median: the 1 ms bucket's highest value, as the text report
  EXPECT_EQ(t[1][5], "1.000000");  // min, exact
  EXPECT_EQ(t[1][6], "2.000000");  // max, exact
  EXPECT_EQ(t[1][t[1].size() - 2], "52.000000");  // 104 requests / 2 s
}

TEST(Csv, FailuresNameTheClassAndTheFirstReasonQuoted) {
  auto csv = csv_of(sample());
  ASSERT_TRUE(csv);
  const auto t = rows(csv->failures);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], (std::vector<std::string>{"class", "name", "first_reason", "count"}));
  EXPECT_EQ(t[1], (std::vector<std::string>{"timeout", "Aggregated", "timeout: no response within 1s, \"quoted\"", "4"}));
  EXPECT_EQ(t[2][0], "status");
  EXPECT_EQ(t[2][2], "HTTP 503 x10");
}

TEST(Csv, NamesThatWouldRunAsFormulasStayText) {
  RunReport r = sample();
  const std::vector<std::string> hostile = {"=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)",
                                            "\tcmd", "\rcmd"};
  for (const std::string& name : hostile) {
    EndpointReport e;
    e.name = name;
    e.counts.requests_sent = 1;
    e.counts.responses = 1;
    e.latency.record(1'000'000);
    r.endpoints.push_back(e);
  }
  auto csv = csv_of(r);
  ASSERT_TRUE(csv);
  for (const std::string& name : hostile) {
    // A TAB or CR is a control character: the JSON report already writes it '?' (report/printable_json.h).
    const bool control = name.front() == '\t' || name.front() == '\r';
    EXPECT_NE(csv->stats.find(control ? "\n?" + name.substr(1) + "," : "\"'" + name.substr(0, 4)), std::string::npos)
        << name << "\n" << csv->stats;
  }
  for (const auto& row : rows(csv->stats)) {
    ASSERT_FALSE(row.empty());
    EXPECT_EQ(std::string_view("=+-@\t\r").find(row[0].front()), std::string_view::npos) << row[0];
  }
}

TEST(Csv, HistoryHasARowPerIntervalOrOnlyItsHeader) {
  auto none = csv_of(sample());
  ASSERT_TRUE(none);
  EXPECT_EQ(rows(none->history).size(), 1u);
  RunReport r = sample();
  SeriesPoint point;
  point.duration_ns = kNsPerS;
  point.sent = 5;
  point.completed = 4;
  point.open_connections = 2;
  point.errors.timeout = 1;
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  latency.record_n(1000, 3);
  latency.record(4000);
  point.latency = stats::PackedHistogram(latency);
  r.timeseries = std::vector<SeriesPoint>{point};
  auto csv = csv_of(r);
  ASSERT_TRUE(csv);
  const auto t = rows(csv->history);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1][0], "0");
  EXPECT_EQ(t[1][4], "0");          // drain: not the drain's record
  EXPECT_EQ(t[1][6], "4");          // completed
  EXPECT_EQ(t[1][9], "1");          // failures
  EXPECT_EQ(t[1][11], "0.001000");  // p50 in ms
  EXPECT_EQ(t[1][17], "");          // backlog: closed loop
}

}  // namespace
}  // namespace pacer::report
