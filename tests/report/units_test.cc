#include "report/units.h"

#include <gtest/gtest.h>

namespace pacer::report {
namespace {

TEST(ReportUnits, TimesUseWrksUnitsAndTwoDecimals) {
  EXPECT_EQ(format_time_ns(236'000), "236.00us");
  EXPECT_EQ(format_time_ns(1'500'000), "1.50ms");
  EXPECT_EQ(format_time_ns(2e9), "2.00s");
  EXPECT_EQ(format_time_ns(90e9), "1.50m");
  EXPECT_EQ(format_time_ns(7200e9), "2.00h");
  EXPECT_EQ(format_time_ns(0), "0.00us");
}

TEST(ReportUnits, MetricAndBinaryPrefixes) {
  EXPECT_EQ(format_metric(14460), "14.46k");
  EXPECT_EQ(format_metric(950), "950.00");
  EXPECT_EQ(format_metric(2'500'000), "2.50M");
  EXPECT_EQ(format_bytes(100), "100.00B");
  EXPECT_EQ(format_bytes(291.35 * 1024 * 1024), "291.35MB");
  EXPECT_EQ(format_bytes(2048), "2.00KB");
}

TEST(ReportUnits, RunDurationsPrintAsTheUserWouldTypeThem) {
  EXPECT_EQ(format_duration_short(10 * kNsPerS), "10s");
  EXPECT_EQ(format_duration_short(60 * kNsPerS), "1m");
  EXPECT_EQ(format_duration_short(90 * kNsPerS), "1m30s");
  EXPECT_EQ(format_duration_short(3600 * kNsPerS), "1h");
  EXPECT_EQ(format_duration_short(500 * kNsPerMs), "500ms");
}

TEST(ReportUnits, PaddingAlignsOneAndTwoLetterUnits) {
  EXPECT_EQ(pad_units("1.50ms", 8), "  1.50ms");
  EXPECT_EQ(pad_units("2.00s", 8), "  2.00s ");
  EXPECT_EQ(pad_units("950.00", 8), "950.00  ");
}

TEST(ReportUnits, ValuesWiderThanTheirColumnStaySeparated) {
  EXPECT_EQ(pad_units(">=501.17ms", 9), " >=501.17ms");
  EXPECT_EQ(pad_units("12345.67ms", 8), " 12345.67ms");
}

}  // namespace
}  // namespace pacer::report
