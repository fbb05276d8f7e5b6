// Golden tests for the text report: a fixed RunReport rendered and compared with
// tests/golden/*.txt. PACER_UPDATE_GOLDEN=1 rewrites the files (review the diff).
#include "report/text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "../support/golden.h"


namespace pacer::report {
namespace {

using pacer::testing::expect_matches_golden;

RunReport healthy_run() {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = 2;
  r.connections = 10;
  r.duration_ns = 10 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.measured_ns = 10'030'000'000;
  r.counters.responses = 287'936;
  r.counters.requests_sent = 287'936;
  r.counters.bytes_read = 305'500'000;
  r.counters.connects = 10;
  r.counters.status_counts[200] = 287'936;
  // Latencies: mostly 200-300us with a tail.
  for (int i = 0; i < 1000; ++i) r.latency.record_n(200'000 + i * 100, 280);
  r.latency.record_n(30'000'000, 1936);
  for (int i = 0; i < 10; ++i) r.connect.record(100'000 + i * 10'000);
  for (int i = 0; i < 200; ++i) r.rate_samples.record(14'000 + (i % 10) * 100);
  return r;
}

TEST(TextReport, HeaderMatchesWrk) {
  EXPECT_EQ(render_header(healthy_run()), "Running 10s test @ http://127.0.0.1:8080/\n  2 threads and 10 connections\n");
}

TEST(TextReport, HeaderForARequestCountRun) {
  RunReport r = healthy_run();
  r.duration_ns = 0;
  r.request_count = 1000;
  EXPECT_EQ(render_header(r), "Running 1000 requests @ http://127.0.0.1:8080/\n  2 threads and 10 connections\n");
}

TEST(TextReport, HealthyRunWithLatencyDistribution) {
  RunReport r = healthy_run();
  r.print_latency = true;
  expect_matches_golden(render_text(r), "text_healthy_latency.txt");
}

TEST(TextReport, TimeoutsAreCensoredLowerBoundsNotZero) {
  RunReport r = healthy_run();
  r.print_latency = true;
  r.counters = {};
  r.counters.connects = 10;
  r.latency.reset();
  r.counters.errors.timeout = 12;
  r.counters.requests_sent = 12;
  // Every request timed out at 2 s: the report must show >= 2 s, never 0.
  r.latency.record_n(2'001'000'000, 12);
  r.latency_censored.record_n(2'001'000'000, 12);
  r.rate_samples.reset();
  const std::string text = render_text(r);
  // Avg and Max are lower bounds; no percentile reads 0 (the stdev of equal samples is 0).
  EXPECT_NE(text.find("    Latency   >=2.00s "), std::string::npos) << text;
  const std::size_t from = text.find("Latency Distribution");
  const std::string distribution = text.substr(from, text.find("requests in") - from);
  EXPECT_EQ(distribution.find("0.00us"), std::string::npos) << text;
  EXPECT_NE(distribution.find("     99%  >=2.00s"), std::string::npos) << text;
  expect_matches_golden(text, "text_all_timeouts.txt");
}

TEST(TextReport, StatusErrorsAreCountedPerCode) {
  RunReport r = healthy_run();
  r.counters.status_counts[200] = 13041;
  r.counters.status_counts[500] = 1517;
  r.counters.responses = 14558;
  r.counters.errors.status = 1517;
  r.counters.errors.read = 3;
  const std::string text = render_text(r);
  EXPECT_NE(text.find("  Non-2xx or 3xx responses: 1517\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  Socket errors: connect 0, read 3, write 0, timeout 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Status codes: 200 13041, 500 1517\n"), std::string::npos) << text;
  expect_matches_golden(text, "text_status_errors.txt");
}

TEST(TextReport, A415ToABodyWithNoContentTypeIsExplainedInOneLine) {
  RunReport r = healthy_run();
  r.counters.status_counts[200] = 0;
  r.counters.status_counts[415] = 287'936;
  r.counters.errors.status = 287'936;
  r.body_without_content_type = true;
  const std::string text = render_text(r);
  EXPECT_NE(text.find("\nStatus 415:   the body went with no Content-Type: use --json or -H to set one\n"),
            std::string::npos)
      << text;
  // Not without 415s, and not when the body had a Content-Type.
  r.counters.status_counts[415] = 0;
  r.counters.status_counts[400] = 287'936;
  EXPECT_EQ(render_text(r).find("Status 415:"), std::string::npos);
  r.counters.status_counts[415] = 1;
  r.body_without_content_type = false;
  EXPECT_EQ(render_text(r).find("Status 415:"), std::string::npos);
}

TEST(TextReport, HttpsRunShowsHandshakesAndTheFirstTlsError) {
  RunReport r = healthy_run();
  r.url = "https://127.0.0.1:8443/";
  r.counters.tls_handshakes = 10;
  r.counters.tls_resumed = 6;
  r.counters.errors.tls = 2;
  r.tls_first_error = "certificate verify failed: hostname mismatch";
  for (int i = 0; i < 10; ++i) r.tls_handshake.record(900'000 + i * 20'000);
  const std::string text = render_text(r);
  EXPECT_NE(text.find("TLS setup:    avg 990.05us, p99 1.08ms, max 1.08ms (10 handshakes, 6 resumed)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Errors:       connect 0, tls 2, read 0"), std::string::npos) << text;
  EXPECT_NE(text.find("TLS errors:   2 (first: certificate verify failed: hostname mismatch)\n"), std::string::npos)
      << text;
  expect_matches_golden(text, "text_https.txt");
}

TEST(TextReport, PlainHttpRunHasNoTlsLines) {
  const std::string text = render_text(healthy_run());
  EXPECT_EQ(text.find("TLS"), std::string::npos) << text;
  EXPECT_EQ(text.find("tls"), std::string::npos) << text;
}

TEST(TextReport, RunWithNoResponseSaysSoInsteadOfPrintingZeros) {
  RunReport r;
  r.url = "http://127.0.0.1:8080/never";
  r.threads = 1;
  r.connections = 4;
  r.duration_ns = 5 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.record_timeouts = false;
  r.measured_ns = 5 * kNsPerS;
  r.counters.errors.timeout = 8;
  const std::string text = render_text(r);
  EXPECT_EQ(text.find("0.00us"), std::string::npos) << text;
  EXPECT_NE(text.find("Failed:"), std::string::npos) << text;
  expect_matches_golden(text, "text_no_response.txt");
}

// A run whose every line is as long as pacer makes them: HTTP/2 with streams,
// an open model with stages and Poisson arrivals, TLS, every error class, many
// status codes, a warm-up, a long first error, and a mean that is a lower bound.
RunReport widest_run() {
  RunReport r = healthy_run();
  r.url = "https://127.0.0.1:8443/";
  r.protocol = "h2";
  r.requests_per_connection = 10;
  r.load_model = LoadModel::kStages;
  r.stages = {{30 * kNsPerS, 1000.5}, {60 * kNsPerS, 12000.25}, {30 * kNsPerS, 0}};
  r.poisson = true;
  r.seed = 18'446'744'073'709'551'615ULL;
  r.target_rate_per_s = 123'456.78;
  r.warmup_ns = 5 * kNsPerS;
  r.counters.warmup_responses = 123'456'789;
  r.counters.requests_sent = 1'234'567'890;
  r.counters.peak_backlog = 987'654;
  stats::ErrorCounts& e = r.counters.errors;
  e.connect = e.tls = e.read = e.write = e.timeout = e.parse = e.deadline = e.backlog = 1'234'567;
  e.stream_reset = e.goaway = e.status = 1'234'567;
  for (int code : {200, 201, 204, 301, 302, 400, 401, 403, 404, 415, 429, 500, 502, 503, 504}) {
    r.counters.status_counts[static_cast<std::size_t>(code)] = 1'234'567;
  }
  r.counters.tls_handshakes = 1'234'567;
  r.counters.tls_resumed = 1'234'500;
  for (int i = 0; i < 10; ++i) r.tls_handshake.record(900'000 + i * 20'000);
  for (int i = 0; i < 1000; ++i) r.service.record(200'000 + i * 100);
  for (int i = 0; i < 1000; ++i) r.queue_delay.record(2'000'000'000 + i * 1000);
  r.latency_censored.record_n(2'001'000'000, 40'000);
  r.latency.record_n(2'001'000'000, 40'000);
  r.first_error = "connect: Connection refused (while connecting to a very long host name that goes on, "
                  "127.0.0.1:8443, after many retries with backoff)";
  r.tls_first_error = "certificate verify failed: unable to get local issuer certificate (self-signed?)";
  r.body_without_content_type = true;
  r.interrupted = true;
  return r;
}

TEST(TextReport, WidestRunMatchesGolden) {
  RunReport r = widest_run();
  r.print_latency = true;
  expect_matches_golden(render_text(r), "text_widest.txt");
}

TEST(TextReport, EveryLineOfEveryGoldenTextReportFitsIn80Columns) {
  // Issue 13: lines of 88-97 columns wrapped on an 80-column terminal (wrk's fit).
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PACER_GOLDEN_DIR)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("text_") || !name.ends_with(".txt")) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      EXPECT_LE(line.size(), 80u) << name << ":" << number << ": " << line;
    }
  }
  EXPECT_GE(files, 6);
}

// The right edge (exclusive column) of each whitespace-separated field of `line`
// from column `from` on.
std::vector<std::size_t> field_ends(const std::string& line, std::size_t from) {
  std::vector<std::size_t> ends;
  for (std::size_t i = from; i < line.size(); ++i) {
    if (line[i] != ' ' && (i + 1 == line.size() || line[i + 1] == ' ')) ends.push_back(i + 1);
  }
  return ends;
}

TEST(TextReport, ThreadStatsColumnsStayAlignedWhenAMeanIsALowerBound) {
  // Issue 13: ">=294.87ms" as the mean pushed Stdev, Max and +/- Stdev right.
  RunReport r = healthy_run();
  r.latency.reset();
  r.latency.record_n(100'000'000, 860);
  r.latency_censored.record_n(1'500'000'000, 140);
  r.latency.record_n(1'500'000'000, 140);
  for (bool marked : {true, false}) {
    if (!marked) r.latency_censored.reset();
    std::istringstream text(render_text(r));
    std::string header, latency, rate;
    std::getline(text, header);
    std::getline(text, latency);
    std::getline(text, rate);
    ASSERT_EQ(latency.find(">=") != std::string::npos, marked) << latency;
    const std::vector<std::size_t> heads = field_ends(header, 14);  // Avg, Stdev, Max, +/-, Stdev
    const std::vector<std::size_t> lat = field_ends(latency, 14);
    const std::vector<std::size_t> req = field_ends(rate, 14);
    ASSERT_EQ(heads.size(), 5u) << header;
    ASSERT_EQ(lat.size(), 4u) << latency;
    ASSERT_EQ(req.size(), 4u) << rate;
    for (std::size_t i = 0; i < 3; ++i) {
      // wrk's layout: a value ends within 2 columns of its heading (units pad);
      // a lower bound that pushed the columns moved them 3 or more.
      EXPECT_LE(heads[i], lat[i] + 2) << i << "\n" << header << "\n" << latency;
      EXPECT_LE(lat[i], heads[i] + 2) << i << "\n" << header << "\n" << latency;
      EXPECT_LE(heads[i], req[i] + 2) << i << "\n" << header << "\n" << rate;
      EXPECT_LE(req[i], heads[i] + 2) << i << "\n" << header << "\n" << rate;
    }
    EXPECT_EQ(lat[3], req[3]) << latency << "\n" << rate;
    EXPECT_EQ(lat[3] + 1, heads[4]) << header << "\n" << latency;
  }
}

// The report with pacer's wrapped lines joined again (continuations are
// indented 14 columns), so phrases can be found wherever the wrap fell.
std::string unwrapped(std::string text) {
  const std::string continuation = "\n" + std::string(14, ' ');
  for (std::size_t at = text.find(continuation); at != std::string::npos; at = text.find(continuation, at)) {
    text.replace(at, continuation.size(), " ");
  }
  return text;
}

TEST(TextReport, Http2ClosedLoopSaysWhatEachStreamDoes) {
  RunReport r = healthy_run();
  r.protocol = "h2";
  r.requests_per_connection = 10;
  const std::string text = unwrapped(render_text(r));
  EXPECT_EQ(text.find("each sending its next request when the previous"), std::string::npos) << text;
  EXPECT_NE(text.find("10 connections with 10 HTTP/2 streams each (100 requests in flight"), std::string::npos)
      << text;
  EXPECT_NE(text.find("each stream sending its next request when its own response"), std::string::npos) << text;
  expect_matches_golden(render_text(r), "text_http2_streams.txt");
}

// HTTP/3 (issue 19): streams like HTTP/2's, and the quic class beside stream_reset and goaway.
TEST(TextReport, Http3SaysStreamsAndListsTheQuicClass) {
  RunReport r = healthy_run();
  r.protocol = "h3";
  r.requests_per_connection = 4;
  r.counters.errors.quic = 3;
  const std::string text = unwrapped(render_text(r));
  EXPECT_NE(render_header(r).find("HTTP/3 with 4 streams each"), std::string::npos) << render_header(r);
  EXPECT_NE(text.find("10 connections with 4 HTTP/3 streams each (40 requests in flight"), std::string::npos) << text;
  EXPECT_NE(text.find("each stream sending its next request when its own response"), std::string::npos) << text;
  EXPECT_EQ(text.find("pipelined"), std::string::npos) << text;
  EXPECT_NE(text.find("stream_reset 0, goaway 0, quic 3"), std::string::npos) << text;
}

TEST(TextReport, PipelinedClosedLoopSaysWhatEachSlotDoes) {
  RunReport r = healthy_run();
  r.requests_per_connection = 4;
  const std::string text = unwrapped(render_text(r));
  EXPECT_NE(text.find("10 connections with 4 pipelined requests each (40 requests in"), std::string::npos) << text;
  EXPECT_NE(text.find("each slot of the pipeline sending its next request"), std::string::npos) << text;
  EXPECT_NE(text.find("responses come back in order"), std::string::npos) << text;
}

// Issue 43 (9): with --follow-redirects a run whose every response was a redirect
// (each request ended in the redirect class: too many hops) had responses below 400;
// its Failed line said there were none.
TEST(TextReport, ARunOfOnlyRedirectsSaysEveryResponseWasARedirect) {
  RunReport r;
  r.url = "http://127.0.0.1:8080/redirect";
  r.threads = r.connections = 1;
  r.request_count = 10;
  r.measured_ns = kNsPerS;
  r.follow_redirects = 2;
  r.counters.requests_sent = 30;
  r.counters.redirects = 20;
  r.counters.errors.redirect = 10;
  const std::string text = unwrapped(render_text(r));
  EXPECT_EQ(text.find("no response with a status below 400"), std::string::npos) << text;
  EXPECT_NE(text.find("Failed:       not one request succeeded (every response was a redirect; none led to a "
                      "final response below 400); every request ended in the redirect error class (at most 2 "
                      "hops; 20 redirects followed)."),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace pacer::report
