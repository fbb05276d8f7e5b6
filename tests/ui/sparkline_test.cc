// Sparklines and the history's resampling onto columns (src/ui/sparkline.h).
#include "ui/sparkline.h"

#include <gtest/gtest.h>

namespace pacer::ui {
namespace {

TEST(Sparkline, ScalesToTheLargestValueWithEightLevels) {
  EXPECT_EQ(sparkline({1, 2, 4, 8}, true), "\u2581\u2582\u2584\u2588");
  EXPECT_EQ(sparkline({1, 2, 4, 8}, false), ".:=@");
}

TEST(Sparkline, NothingIsBlankAndAnythingIsAtLeastTheLowestBar) {
  EXPECT_EQ(sparkline({0, 0.001, 1000}, false), " .@");
  EXPECT_EQ(sparkline({0, 0}, true), "  ");
  EXPECT_EQ(sparkline({}, true), "");
}

std::vector<HistoryPoint> seconds(const std::vector<std::uint64_t>& completed) {
  std::vector<HistoryPoint> out;
  for (std::uint64_t c : completed) out.push_back(HistoryPoint{kNsPerS, c, static_cast<std::int64_t>(c)});
  return out;
}

TEST(SparklineSeries, OnePointPerColumnWhileTheyFit) {
  EXPECT_EQ(throughput_series(seconds({10, 20, 30}), 80), (std::vector<double>{10, 20, 30}));
}

TEST(SparklineSeries, SqueezedColumnsAverageThroughputOverTimeAndKeepTheWorstP99) {
  const auto history = seconds({10, 30, 20, 60});
  EXPECT_EQ(throughput_series(history, 2), (std::vector<double>{20, 40}));
  EXPECT_EQ(p99_series(history, 2), (std::vector<double>{30, 60}));
}

TEST(SparklineSeries, UnevenGroupsCoverEveryPointOnce) {
  const auto history = seconds({1, 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(throughput_series(history, 3).size(), 3u);
  EXPECT_EQ(throughput_series(history, 3), (std::vector<double>{1, 1, 1}));
}

}  // namespace
}  // namespace pacer::ui
