// The live view's text (src/ui/dashboard_render.h): golden frames at 80 and 120
// columns from fixed snapshots, and the rules that hold at any width.
#include "ui/dashboard_render.h"

#include <gtest/gtest.h>

#include <sstream>

#include "../support/golden.h"

namespace pacer::ui {
namespace {

using pacer::testing::expect_matches_golden;

LatencyFigures figures(std::int64_t p50, std::int64_t p90, std::int64_t p99, std::int64_t max) {
  return LatencyFigures{1000, p50, p90, p99, max};
}

// A closed-loop run 4.2 s into 10 s, with a throughput that dips in the middle.
DashboardSnapshot closed_snapshot() {
  DashboardSnapshot s;
  s.run.url = "http://127.0.0.1:8080/index.html";
  s.run.threads = 2;
  s.run.connections = 10;
  s.run.duration_ns = 10 * kNsPerS;
  s.run.load_model = "closed loop";
  s.elapsed_ns = 4200 * kNsPerMs;
  s.measured_ns = 4200 * kNsPerMs;
  s.completed = 171'530;
  s.sent = 171'540;
  s.average_rate_per_s = 40'840.5;
  s.has_interval = true;
  s.current_rate_per_s = 41'234.0;
  s.last = figures(1'200'000, 2'300'000, 4'500'000, 12'000'000);
  s.run_latency = figures(1'100'000, 2'200'000, 4'400'000, 15'000'000);
  s.open_connections = 10;
  s.in_flight = 10;
  s.oldest_in_flight_ns = 1'300'000;
  const std::uint64_t per_second[] = {38'000, 41'000, 12'000, 41'234};
  const std::int64_t p99[] = {4'000'000, 4'200'000, 40'000'000, 4'500'000};
  for (int i = 0; i < 4; ++i) s.history.push_back(HistoryPoint{kNsPerS, per_second[i], p99[i]});
  return s;
}

// An open-model run falling behind: errors, a backlog, a lag.
DashboardSnapshot open_snapshot() {
  DashboardSnapshot s = closed_snapshot();
  s.run.open_model = true;
  s.run.load_model = "open, constant 50000/s";
  s.run.warmup_ns = 2 * kNsPerS;
  s.elapsed_ns = 6200 * kNsPerMs;
  s.target_rate_per_s = 50'000.0;
  s.sent_rate_per_s = 41'500.0;
  s.backlog = 420;
  s.schedule_lag_ns = 85 * kNsPerMs;
  s.errors.timeout = 12;
  s.errors.status = 3;
  s.open_connections = 9;
  s.oldest_in_flight_ns = 3'100'000;
  // 10 connections at 240us each carry about 41.67k/s of the 50k/s.
  s.bottleneck = report::capacity_for(10, 1, false, 240'000, 50'000);
  return s;
}

// A closed-loop run during a 1 s server freeze: the few responses that complete
// are fast, but every request still in flight has waited over a second.
DashboardSnapshot stalled_snapshot() {
  DashboardSnapshot s = closed_snapshot();
  s.current_rate_per_s = 12;
  s.last = figures(30'000, 32'000, 33'000, 40'000);
  s.oldest_in_flight_ns = 1'020 * kNsPerMs;
  s.in_flight_over_interval = 10;
  s.history.push_back(HistoryPoint{kNsPerS, 12, 33'000, 1'020 * kNsPerMs});
  return s;
}

std::string render_at(const DashboardSnapshot& s, int width, bool colour = false) {
  RenderOptions o;
  o.width = width;
  o.colour = colour;
  return render(s, o);
}

TEST(DashboardRender, ClosedLoopAt80ColumnsMatchesGolden) {
  expect_matches_golden(render_at(closed_snapshot(), 80), "dashboard_closed_80.txt");
}

TEST(DashboardRender, ClosedLoopAt120ColumnsMatchesGolden) {
  expect_matches_golden(render_at(closed_snapshot(), 120), "dashboard_closed_120.txt");
}

TEST(DashboardRender, OpenModelFallingBehindAt80ColumnsMatchesGolden) {
  expect_matches_golden(render_at(open_snapshot(), 80), "dashboard_open_80.txt");
}

TEST(DashboardRender, OpenModelFallingBehindAt120ColumnsMatchesGolden) {
  expect_matches_golden(render_at(open_snapshot(), 120), "dashboard_open_120.txt");
}

TEST(DashboardRender, RequestCountRunShowsResponsesAgainstTheTarget) {
  DashboardSnapshot s = closed_snapshot();
  s.run.duration_ns = 0;
  s.run.request_count = 200'000;
  const std::string frame = render_at(s, 80);
  EXPECT_NE(frame.find("171.53k / 200.00k responses"), std::string::npos) << frame;
  EXPECT_NE(frame.find(" 85%"), std::string::npos) << frame;  // 171530 of 200000, rounded down
}

TEST(DashboardRender, NoLineIsWiderThanTheTerminalAtAnyWidth) {
  for (int width = 20; width <= 160; ++width) {
    std::istringstream lines(render_at(open_snapshot(), width));
    std::string line;
    while (std::getline(lines, line)) EXPECT_LE(display_width(line), width) << width << ": " << line;
  }
}

TEST(DashboardRender, OpenModelFallingBehindAt60ColumnsMatchesGolden) {
  // Issue 13: at 60 columns the schedule line lost the lag value and the backlog.
  expect_matches_golden(render_at(open_snapshot(), 60), "dashboard_open_60.txt");
}

TEST(DashboardRender, EveryFigureIsStillThereAt60Columns) {
  const std::string frame = render_at(open_snapshot(), 60);
  for (const char* needle : {"6.2s / 12.0s", "41.23k", "timeout 12, status 3", "4.50ms", "15.00ms",
                             "9 open (of 10)", "target 50.00k/s", "sent 41.50k/s (83.0%)", "lag 85.00ms",
                             "backlog 420", "171.53k responses", "average 40.84k", "raise -c to ~12",
                             "in flight 10, oldest 3.10ms"}) {
    EXPECT_NE(frame.find(needle), std::string::npos) << needle << "\n" << frame;
  }
}

TEST(DashboardRender, ANarrowViewWrapsWholeFiguresUnderTheLabelsColumn) {
  DashboardSnapshot s = open_snapshot();
  s.errors.connect = 5;
  s.errors.read = 1234;
  s.elapsed_ns = 12 * kNsPerS + 1;
  const std::string frame = render_at(s, 50);
  for (const char* needle : {"lag 85.00ms,", "backlog 420", "connect 5,", "read 1234,", "timeout 12,", "status 3",
                             "171.53k responses", "Waiting for the responses still in flight.",
                             "Ctrl-C stops the run.", "max"}) {
    EXPECT_NE(frame.find(needle), std::string::npos) << needle << "\n" << frame;
  }
  // Continuation rows start under the figures, not under the labels.
  EXPECT_NE(frame.find("\nSchedule     target 50.00k/s\n             sent 41.50k/s (83.0%)  lag 85.00ms,\n"
                       "             backlog 420\n"),
            std::string::npos)
      << frame;
}

TEST(DashboardRender, ANarrowTerminalDropsTheBarAndKeepsTheTime) {
  const std::string frame = render_at(open_snapshot(), 30);
  EXPECT_NE(frame.find("\n6.2s / 12.0s   51%\n"), std::string::npos) << frame;
}

TEST(DashboardRender, WithoutColourThereIsNoEscapeSequence) {
  EXPECT_EQ(render_at(open_snapshot(), 80).find('\x1b'), std::string::npos);
}

TEST(DashboardRender, ColourMarksErrorsRedAndAFallingBehindScheduleYellowOnly) {
  const std::string frame = render_at(open_snapshot(), 80, true);
  EXPECT_NE(frame.find("\x1b[31mtimeout 12, status 3\x1b[0m"), std::string::npos) << frame;
  // Sent below target and the backlog behind it: one yellow run.
  EXPECT_NE(frame.find("\x1b[33msent 41.50k/s (83.0%)   lag 85.00ms, backlog 420\x1b[0m"), std::string::npos) << frame;
  // A healthy closed-loop run has nothing to point at.
  EXPECT_EQ(render_at(closed_snapshot(), 80, true).find('\x1b'), std::string::npos);
}

TEST(DashboardRender, AShardSaysWhichPartOfTheTestItRunsAndIsJudgedOnIt) {
  DashboardSnapshot s = open_snapshot();
  s.run.load_model = "open, constant 2000/s";
  s.run.shard_label = "shard 0 of 3";
  s.run.shard_summary = "shard 0 of 3: 2000 of 6000 requests/s, 10 of 30 connections";
  s.target_rate_per_s = 2000.0;  // the engine's interval target is the shard's
  s.sent_rate_per_s = 2000.0;
  s.backlog = 0;
  const std::string frame = render_at(s, 80, true);
  EXPECT_NE(frame.find("open, constant 2000/s, 10 connections on 2 threads"), std::string::npos) << frame;
  EXPECT_NE(frame.find("shard 0 of 3: 2000 of 6000 requests/s, 10 of 30 connections"), std::string::npos) << frame;
  EXPECT_NE(frame.find("sent 2.00k/s (100.0%)"), std::string::npos) << frame;
  EXPECT_EQ(frame.find("\x1b[33msent"), std::string::npos) << frame;  // not the falling-behind colour
  EXPECT_NE(render_at(s, 60).find("shard 0 of 3: 2000 of 6000 requests/s, 10 of 30"), std::string::npos);
}

TEST(DashboardRender, WarmUpAndDrainAreSaidInTheFooter) {
  DashboardSnapshot s = open_snapshot();
  s.elapsed_ns = kNsPerS;
  EXPECT_NE(render_at(s, 80).find("Warming up: nothing is recorded before 2.0s."), std::string::npos);
  s.elapsed_ns = 12 * kNsPerS + 1;
  EXPECT_NE(render_at(s, 80).find("Waiting for the responses still in flight."), std::string::npos);
}

TEST(DashboardRender, BeforeTheFirstIntervalFiguresAreDashes) {
  DashboardSnapshot s;
  s.run = closed_snapshot().run;
  const std::string frame = render_at(s, 80);
  EXPECT_NE(frame.find("now -"), std::string::npos) << frame;
  EXPECT_NE(frame.find("Throughput   -"), std::string::npos) << frame;
  EXPECT_NE(frame.find("0.0s / 10.0s"), std::string::npos) << frame;
}

TEST(DashboardRender, AStallShowsAsTheAgeOfTheOldestRequestInFlightAndAPeak) {
  const std::string frame = render_at(stalled_snapshot(), 80, true);
  EXPECT_NE(frame.find("10 open (of 10)\x1b[33m   in flight 10, oldest 1.02s (10 older than 1s)\x1b[0m"),
            std::string::npos)
      << frame;
  // The p99 sparkline's last column is its highest and its note says 1.02s, not 33us.
  const std::size_t p99_row = frame.find("\np99 ");
  ASSERT_NE(p99_row, std::string::npos) << frame;
  const std::string row = frame.substr(p99_row + 1, frame.find('\n', p99_row + 1) - p99_row - 1);
  EXPECT_NE(row.find("\u2581\u2581\u2581\u2581\u2588 "), std::string::npos) << row;
  EXPECT_NE(row.find("max 1.02s"), std::string::npos) << row;
}

TEST(DashboardRender, AnOpenModelCappedByItsConnectionsSaysByHowMuch) {
  const std::string frame = render_at(open_snapshot(), 80, true);
  EXPECT_NE(frame.find("Bottleneck   \x1b[33m10 conns / 240.00us \u2248 41.67k/s < target 50.00k/s: raise -c to ~12"),
            std::string::npos)
      << frame;
  EXPECT_EQ(render_at(closed_snapshot(), 80).find("Bottleneck"), std::string::npos);
}

TEST(FormatClock, TenthsOfSecondsThenMinutesThenHours) {
  EXPECT_EQ(format_clock(0), "0.0s");
  EXPECT_EQ(format_clock(4'250 * kNsPerMs), "4.2s");
  EXPECT_EQ(format_clock(65 * kNsPerS), "1m05s");
  EXPECT_EQ(format_clock(2 * 3600 * kNsPerS + 3 * 60 * kNsPerS), "2h03m");
}

}  // namespace
}  // namespace pacer::ui
