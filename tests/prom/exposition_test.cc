// The text exposition writers (src/prom/exposition.h).
#include "prom/exposition.h"

#include <gtest/gtest.h>

namespace pacer::prom {
namespace {

std::vector<Family> sample_families() {
  Family requests{"pacer_requests_sent", "Requests written.", MetricType::kCounter, "", {}, {}, {}};
  requests.samples.push_back({{{"run_id", "r1"}}, 42});
  Family open{"pacer_connections_open", "Open \\ connections\nnow.", MetricType::kGauge, "", {}, {}, {}};
  open.samples.push_back({{{"run_id", "r1"}, {"endpoint", "GET /a\"b\\c\nd"}}, 3});
  Family latency{"pacer_latency_seconds", "Latency.", MetricType::kHistogram, "seconds", {}, {0.001, 0.5}, {}};
  latency.histograms.push_back({{{"run_id", "r1"}}, {2, 5}, 0.25, 7});
  return {requests, open, latency};
}

TEST(Exposition, LabelValuesEscapeBackslashQuoteAndNewline) {
  EXPECT_EQ(escape_label_value("plain"), "plain");
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(escape_label_value("tab\there é"), "tab\there é");  // UTF-8 and tabs stay as they are
}

TEST(Exposition, ValuesPrintIntegersExactlyAndSpecialsAsPrometheusReadsThem) {
  EXPECT_EQ(format_value(42), "42");
  EXPECT_EQ(format_value(18014398509481984.0), "1.8014398509481984e+16");
  EXPECT_EQ(format_value(0.000999935), "0.000999935");
  EXPECT_EQ(format_value(1e-06), "1e-06");
  EXPECT_EQ(format_value(1.0 / 0.0), "+Inf");
  EXPECT_EQ(format_value(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(format_value(0.0 / 0.0), "NaN");
}

TEST(Exposition, TextFormatHasHelpTypeAndCumulativeBuckets) {
  const std::string text = render_text(sample_families());
  EXPECT_EQ(text,
            "# HELP pacer_requests_sent_total Requests written.\n"
            "# TYPE pacer_requests_sent_total counter\n"
            "pacer_requests_sent_total{run_id=\"r1\"} 42\n"
            "# HELP pacer_connections_open Open \\\\ connections\\nnow.\n"
            "# TYPE pacer_connections_open gauge\n"
            "pacer_connections_open{run_id=\"r1\",endpoint=\"GET /a\\\"b\\\\c\\nd\"} 3\n"
            "# HELP pacer_latency_seconds Latency.\n"
            "# TYPE pacer_latency_seconds histogram\n"
            "pacer_latency_seconds_bucket{run_id=\"r1\",le=\"0.001\"} 2\n"
            "pacer_latency_seconds_bucket{run_id=\"r1\",le=\"0.5\"} 5\n"
            "pacer_latency_seconds_bucket{run_id=\"r1\",le=\"+Inf\"} 7\n"
            "pacer_latency_seconds_sum{run_id=\"r1\"} 0.25\n"
            "pacer_latency_seconds_count{run_id=\"r1\"} 7\n");
}

TEST(Exposition, OpenMetricsNamesCounterFamiliesWithoutTotalAndEndsWithEof) {
  const std::string text = render_openmetrics(sample_families());
  EXPECT_NE(text.find("# TYPE pacer_requests_sent counter\n"), std::string::npos);
  EXPECT_NE(text.find("\npacer_requests_sent_total{run_id=\"r1\"} 42\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE pacer_latency_seconds histogram\n# UNIT pacer_latency_seconds seconds\n"),
            std::string::npos);
  EXPECT_NE(text.find("# HELP pacer_connections_open Open \\\\ connections\\nnow.\n"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

TEST(Exposition, OpenMetricsOnlyWhenTheAcceptHeaderAsksForIt) {
  // What Prometheus 2.x sends.
  EXPECT_TRUE(wants_openmetrics("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                                "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
  EXPECT_TRUE(wants_openmetrics("text/plain;q=0.5, application/openmetrics-text; version=1.0.0; q=0.9"));
  EXPECT_FALSE(wants_openmetrics(""));
  EXPECT_FALSE(wants_openmetrics("text/plain;version=0.0.4"));
  EXPECT_FALSE(wants_openmetrics("*/*"));
  EXPECT_FALSE(wants_openmetrics("application/openmetrics-text;q=0"));
}

TEST(Exposition, NamesFollowPrometheusRules) {
  EXPECT_TRUE(is_metric_name("pacer_latency_seconds"));
  EXPECT_TRUE(is_metric_name("a:b_c"));
  EXPECT_FALSE(is_metric_name("9lives"));
  EXPECT_FALSE(is_metric_name("has-dash"));
  EXPECT_TRUE(is_label_name("team"));
  EXPECT_FALSE(is_label_name("__name__"));
  EXPECT_FALSE(is_label_name("a:b"));
  EXPECT_FALSE(is_label_name(""));
}

}  // namespace
}  // namespace pacer::prom
