// Tests for the .hgrm renderer: a golden file from a fixed histogram
// (tests/golden/basic.hgrm; PACER_UPDATE_GOLDEN=1 rewrites it, review the diff),
// the Java reference's own output for a histogram it wrote, and the details that
// make the format: the percentile ladder, the last line, rounding, the footer.
// tests/reference/test_hdr_reference.py also diffs basic.hgrm against Java.
#include "report/hgrm.h"

#include <gtest/gtest.h>

#include "../support/golden.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "stats/hdr_codec.h"

namespace pacer::report {
namespace test_fixtures {

// Latencies from 180us to 8.2ms with a tail at 25ms, 120ms and 1.25s; built
// without an RNG so the golden file is the same everywhere. Also dumped by
// HdrCodec.DumpForReference for the Java comparison.
stats::Histogram basic_hgrm_histogram() {
  stats::Histogram h = stats::Histogram::for_latency_ns();
  for (std::int64_t i = 0; i < 2000; ++i) h.record_n(180'000 + i * i * 2, 1 + i % 5);
  h.record_n(25'000'000, 40);
  h.record_n(120'000'000, 4);
  h.record(1'250'000'000);
  return h;
}

}  // namespace test_fixtures

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Hgrm, MatchesGoldenFile) {
  const std::string actual = render_hgrm(test_fixtures::basic_hgrm_histogram(), 1e6);
  pacer::testing::expect_matches_golden(actual, "basic.hgrm");
}

// Java's outputPercentileDistribution(System.out, 5, 1.0) for a jHiccup interval
// histogram (20us..1h, 2 digits) that Java encoded; pacer decodes and renders it.
TEST(Hgrm, MatchesTheJavaReferenceOutputForAHistogramItWrote) {
  const Result<stats::Histogram> h = stats::decode_v2_base64(
      "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI=");
  ASSERT_TRUE(h.ok()) << h.error().message;
  const std::string java = R"(       Value     Percentile TotalCount 1/(1-Percentile)

    16383.00 0.000000000000         12           1.00
   131071.00 0.100000000000         79           1.11
   262143.00 0.200000000000        166           1.25
   294911.00 0.300000000000        249           1.43
   327679.00 0.400000000000        311           1.67
   344063.00 0.500000000000        450           2.00
   344063.00 0.550000000000        450           2.22
   344063.00 0.600000000000        450           2.50
   360447.00 0.650000000000        536           2.86
   360447.00 0.700000000000        536           3.33
   376831.00 0.750000000000        709           4.00
   376831.00 0.775000000000        709           4.44
   376831.00 0.800000000000        709           5.00
   376831.00 0.825000000000        709           5.71
   376831.00 0.850000000000        709           6.67
   376831.00 0.875000000000        709           8.00
   376831.00 0.887500000000        709           8.89
   376831.00 0.900000000000        709          10.00
   376831.00 0.912500000000        709          11.43
   376831.00 0.925000000000        709          13.33
   376831.00 0.937500000000        709          16.00
   376831.00 0.943750000000        709          17.78
   376831.00 0.950000000000        709          20.00
   376831.00 0.956250000000        709          22.86
   393215.00 0.962500000000        731          26.67
   393215.00 0.968750000000        731          32.00
   393215.00 0.971875000000        731          35.56
   393215.00 0.975000000000        731          40.00
   393215.00 0.978125000000        731          45.71
   393215.00 0.981250000000        731          53.33
   393215.00 0.984375000000        731          64.00
   393215.00 0.985937500000        731          71.11
   409599.00 0.987500000000        739          80.00
   409599.00 0.989062500000        739          91.43
   409599.00 0.990625000000        739         106.67
   409599.00 0.992187500000        739         128.00
   409599.00 0.992968750000        739         142.22
   409599.00 0.993750000000        739         160.00
   409599.00 0.994531250000        739         182.86
   409599.00 0.995312500000        739         213.33
   409599.00 0.996093750000        739         256.00
   409599.00 0.996484375000        739         284.44
   409599.00 0.996875000000        739         320.00
   409599.00 0.997265625000        739         365.71
  1769471.00 0.997656250000        740         426.67
  1769471.00 0.998046875000        740         512.00
  1769471.00 0.998242187500        740         568.89
  1769471.00 0.998437500000        740         640.00
  1769471.00 0.998632812500        740         731.43
  2768895.00 0.998828125000        741         853.33
  2768895.00 1.000000000000        741
#[Mean    =    301998.47, StdDeviation   =    141377.58]
#[Max     =   2768895.00, Total count    =          741]
#[Buckets =           21, SubBuckets     =          256]
)";
  EXPECT_EQ(render_hgrm(*h, 1.0), java);
}

TEST(Hgrm, EmptyHistogramPrintsOnlyTheHeaderAndFooter) {
  EXPECT_EQ(render_hgrm(stats::Histogram::for_latency_ns(), 1e6),
            "       Value     Percentile TotalCount 1/(1-Percentile)\n"
            "\n"
            "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
            "#[Max     =        0.000, Total count    =            0]\n"
            "#[Buckets =           32, SubBuckets     =         2048]\n");
}

TEST(Hgrm, PercentileLevelsTakeFiveTicksPerHalfDistance) {
  stats::Histogram h(1, 1'000'000, 3);
  for (std::int64_t v = 1; v <= 100'000; ++v) h.record(v);
  const std::vector<std::string> lines = lines_of(render_hgrm(h, 1.0));
  std::vector<std::string> levels;
  for (std::size_t i = 2; i < 2 + 16; ++i) levels.push_back(lines.at(i).substr(13, 14));
  const std::vector<std::string> expected = {"0.000000000000", "0.100000000000", "0.200000000000", "0.300000000000",
                                             "0.400000000000", "0.500000000000", "0.550000000000", "0.600000000000",
                                             "0.650000000000", "0.700000000000", "0.750000000000", "0.775000000000",
                                             "0.800000000000", "0.825000000000", "0.850000000000", "0.875000000000"};
  EXPECT_EQ(levels, expected);
}

TEST(Hgrm, LastRowIsOneHundredPercentWithoutTheInverseColumn) {
  stats::Histogram h(1, 1'000'000, 3);
  h.record_n(1000, 99);
  h.record(5000);
  const std::vector<std::string> lines = lines_of(render_hgrm(h, 1.0));
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(lines[2], "    1000.000 0.000000000000         99           1.00");
  EXPECT_EQ(lines[lines.size() - 5], "    5003.000 0.990625000000        100         106.67");
  EXPECT_EQ(lines[lines.size() - 4], "    5003.000 1.000000000000        100");
  EXPECT_EQ(lines[lines.size() - 2], "#[Max     =     5003.000, Total count    =          100]");
}

TEST(Hgrm, RoundsHalfUpFromTheShortestDecimalLikeJava) {
  stats::Histogram h(1, 1'000'000, 3);
  h.record(45);
  // 45 / 1e4 is the double 0.00449999...: printf's %.3f gives 0.004, Java's 0.005.
  EXPECT_EQ(lines_of(render_hgrm(h, 1e4)).at(2), "       0.005 0.000000000000          1           1.00");
}

TEST(Hgrm, FooterNamesTheLayout) {
  const std::vector<std::string> lines = lines_of(render_hgrm(stats::Histogram(20'000, 3'600'000'000'000, 2), 1.0));
  EXPECT_EQ(lines.back(), "#[Buckets =           21, SubBuckets     =          256]");
}

}  // namespace
}  // namespace pacer::report
