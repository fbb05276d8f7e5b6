#include "cli/gate_options.h"

#include <gtest/gtest.h>

namespace pacer::cli {
namespace {

TEST(GateOptions, SloListParsesEveryStatistic) {
  auto gates = parse_slo("p99<250ms, p50<=20ms,max<2s,mean<5ms,p99.9<1s", "--slo");
  ASSERT_TRUE(gates.ok()) << gates.error().message;
  ASSERT_EQ(gates->size(), 5u);
  EXPECT_EQ((*gates)[0].statistic, LatencyGate::Statistic::kPercentile);
  EXPECT_DOUBLE_EQ((*gates)[0].percentile, 99);
  EXPECT_EQ((*gates)[0].limit_ns, 250 * kNsPerMs);
  EXPECT_FALSE((*gates)[0].inclusive);
  EXPECT_TRUE((*gates)[1].inclusive);
  EXPECT_EQ((*gates)[1].text, "p50<=20ms");
  EXPECT_EQ((*gates)[2].statistic, LatencyGate::Statistic::kMax);
  EXPECT_EQ((*gates)[3].statistic, LatencyGate::Statistic::kMean);
  EXPECT_DOUBLE_EQ((*gates)[4].percentile, 99.9);
}

TEST(GateOptions, MalformedSloTermsNameTheTerm) {
  EXPECT_EQ(parse_slo("p99>250ms", "--slo").error().message,
            "--slo: 'p99>250ms' is not STATISTIC<LIMIT (e.g. p99<250ms, mean<20ms, max<2s)");
  EXPECT_EQ(parse_slo("median<1s", "--slo").error().message,
            "--slo: unknown statistic 'median' in 'median<1s' (use pNN such as p99 or p99.9, mean, or max)");
  EXPECT_EQ(parse_slo("p100<1s", "--slo").error().message, "--slo: percentile in 'p100<1s' must be between 0 and 100");
  EXPECT_FALSE(parse_slo("p99<fast", "--slo").ok());
  EXPECT_FALSE(parse_slo("p99<1s,", "--slo").ok());
}

TEST(GateOptions, ErrorRateTakesPercentOrFraction) {
  EXPECT_DOUBLE_EQ(*parse_error_rate("1%", "--max-error-rate"), 0.01);
  EXPECT_DOUBLE_EQ(*parse_error_rate("0.5%", "--max-error-rate"), 0.005);
  EXPECT_DOUBLE_EQ(*parse_error_rate("0.02", "--max-error-rate"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_error_rate("0", "--max-error-rate"), 0.0);
  EXPECT_EQ(parse_error_rate("150%", "--max-error-rate").error().message, "--max-error-rate: error rate 150% is above 100%");
  EXPECT_EQ(parse_error_rate("lots", "--max-error-rate").error().message,
            "--max-error-rate: 'lots' is not an error rate (e.g. 1% or 0.01)");
}

}  // namespace
}  // namespace pacer::cli
