// The Prometheus text reader (evidence/prom_text.h) and the scraper's rates.
#include "evidence/prom_text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pacer::evidence {
namespace {

TEST(PromText, ReadsCountersGaugesAndLabels) {
  const char* text =
      "# HELP process_cpu_seconds_total CPU.\n"
      "# TYPE process_cpu_seconds_total counter\n"
      "process_cpu_seconds_total 12.5\n"
      "# TYPE node_load1 gauge\n"
      "node_load1 0.25\n"
      "# TYPE node_cpu_seconds_total counter\n"
      "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 1.5e3 1700000000000\n"
      "# TYPE req histogram\n"
      "req_bucket{le=\"+Inf\"} 7\n"
      "req_sum 3.5\n"
      "untyped_total 9\n";
  std::size_t bad = 99;
  const auto s = parse_prom_text(text, &bad);
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0].series, "process_cpu_seconds_total");
  EXPECT_TRUE(s[0].is_counter);
  EXPECT_DOUBLE_EQ(s[0].value, 12.5);
  EXPECT_FALSE(s[1].is_counter);
  EXPECT_EQ(s[2].name, "node_cpu_seconds_total");
  EXPECT_EQ(s[2].series, "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"}");
  EXPECT_DOUBLE_EQ(s[2].value, 1500);
  EXPECT_TRUE(s[2].is_counter);
  EXPECT_TRUE(s[3].is_counter);  // a histogram's bucket
  EXPECT_TRUE(s[4].is_counter);  // and its sum
  EXPECT_TRUE(s[5].is_counter);  // an untyped _total
}

TEST(PromText, SkipsBrokenLinesAndCountsThem) {
  std::size_t bad = 0;
  const auto s = parse_prom_text("good 1\nbad{x=\"1\" 2\n9starts_with_digit 3\nnovalue\nquoted{a=\"}\"} 4\r\n", &bad);
  EXPECT_EQ(bad, 3u);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].series, "quoted{a=\"}\"}");
  EXPECT_DOUBLE_EQ(s[1].value, 4);
}

// Issue 44 (18): lines Prometheus's own parser refuses are not taken as values.
TEST(PromText, ALineWithABadTimestampOrADuplicateLabelIsBroken) {
  std::size_t bad = 0;
  const auto s = parse_prom_text(
      "stamp_bad 1 soon\n"
      "stamp_two 1 17 18\n"
      "dup{a=\"1\",a=\"2\"} 2\n"
      "noquote{a=1} 3\n"
      "nonamelabel{=\"1\"} 4\n"
      "ok_ms{a=\"1\",b=\"x\\\"y\",} 5 1700000000000\n"
      "ok_om 6 1700000000.25 # {trace_id=\"t\"} 1\n",
      &bad);
  EXPECT_EQ(bad, 5u);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "ok_ms");
  EXPECT_DOUBLE_EQ(s[0].value, 5);
  EXPECT_EQ(s[1].name, "ok_om");
}

TEST(PromText, ReadsSpecialValues) {
  const auto s = parse_prom_text("a +Inf\nb -Inf\nc NaN\n");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(std::isinf(s[0].value) && s[0].value > 0);
  EXPECT_TRUE(std::isinf(s[1].value) && s[1].value < 0);
  EXPECT_TRUE(std::isnan(s[2].value));
}

}  // namespace
}  // namespace pacer::evidence
