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

TEST(PromText, ReadsSpecialValues) {
  const auto s = parse_prom_text("a +Inf\nb -Inf\nc NaN\n");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(std::isinf(s[0].value) && s[0].value > 0);
  EXPECT_TRUE(std::isinf(s[1].value) && s[1].value < 0);
  EXPECT_TRUE(std::isnan(s[2].value));
}

}  // namespace
}  // namespace pacer::evidence
