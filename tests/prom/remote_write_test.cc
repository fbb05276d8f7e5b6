// The remote-write body (src/prom/remote_write.h): the hand-encoded protobuf
// read back by protoc's decoder (Debian's protobuf-compiler) against
// src/prom/remote_write.proto, and snappy read back by libsnappy's decoder.
#include "prom/remote_write.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace pacer::prom {
namespace {

const std::string kProtoDir = std::string(PACER_GOLDEN_DIR) + "/../../src/prom";

// protoc --decode's text form of `bytes`, or "" when protoc is missing.
std::string protoc_decode(const std::string& bytes) {
  char path[] = "/tmp/pacer_remote_write_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return "";
  const bool written = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ::close(fd);
  std::string out;
  if (written) {
    const std::string command = "protoc --proto_path=" + kProtoDir +
                                " --decode=pacer.remote.WriteRequest remote_write.proto < " + path + " 2>&1";
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char buffer[4096];
      std::size_t n = 0;
      while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
      if (pclose(pipe) != 0) out = "protoc failed: " + out;
    }
  }
  ::unlink(path);
  return out;
}

std::vector<Family> families() {
  Family errors{"pacer_errors", "Errors \"by\" class.", MetricType::kCounter, "", {}, {}, {}};
  errors.samples.push_back({{{"run_id", "r"}, {"Zone", "eu"}, {"class", "timeout"}}, 3});
  Family latency{"pacer_latency_seconds", "Latency.", MetricType::kHistogram, "seconds", {}, {0.001}, {}};
  latency.histograms.push_back({{{"run_id", "r"}}, {4}, 0.0125, 5});
  return {errors, latency};
}

TEST(RemoteWrite, ProtocDecodesTheRequestWithSortedLabelsAndMetadata) {
  ASSERT_EQ(std::system("protoc --version > /dev/null 2>&1"), 0) << "protoc missing: scripts/setup.sh installs protobuf-compiler";
  const std::string decoded = protoc_decode(encode_write_request(families(), 1700000000123));
  // The counter: __name__ with _total, labels sorted by name (uppercase first, as bytes sort).
  EXPECT_NE(decoded.find("timeseries {\n"
                         "  labels {\n    name: \"Zone\"\n    value: \"eu\"\n  }\n"
                         "  labels {\n    name: \"__name__\"\n    value: \"pacer_errors_total\"\n  }\n"
                         "  labels {\n    name: \"class\"\n    value: \"timeout\"\n  }\n"
                         "  labels {\n    name: \"run_id\"\n    value: \"r\"\n  }\n"
                         "  samples {\n    value: 3\n    timestamp: 1700000000123\n  }\n"
                         "}\n"),
            std::string::npos)
      << decoded;
  // The histogram: one series per bucket (le), +Inf, _sum and _count.
  EXPECT_NE(decoded.find("value: \"pacer_latency_seconds_bucket\"\n  }\n  labels {\n    name: \"le\"\n"
                         "    value: \"0.001\"\n  }\n  labels {\n    name: \"run_id\"\n    value: \"r\"\n  }\n"
                         "  samples {\n    value: 4\n"),
            std::string::npos)
      << decoded;
  EXPECT_NE(decoded.find("value: \"+Inf\"\n  }\n  labels {\n    name: \"run_id\"\n    value: \"r\"\n  }\n"
                         "  samples {\n    value: 5\n"),
            std::string::npos)
      << decoded;
  EXPECT_NE(decoded.find("value: \"pacer_latency_seconds_sum\"\n  }\n  labels {\n    name: \"run_id\"\n"
                         "    value: \"r\"\n  }\n  samples {\n    value: 0.0125\n"),
            std::string::npos)
      << decoded;
  EXPECT_NE(decoded.find("metadata {\n  type: COUNTER\n  metric_family_name: \"pacer_errors\"\n"
                         "  help: \"Errors \\\"by\\\" class.\"\n}\n"),
            std::string::npos)
      << decoded;
  EXPECT_NE(decoded.find("metadata {\n  type: HISTOGRAM\n  metric_family_name: \"pacer_latency_seconds\"\n"
                         "  help: \"Latency.\"\n  unit: \"seconds\"\n}\n"),
            std::string::npos)
      << decoded;
}

TEST(RemoteWrite, LongFieldsUseMultiByteLengths) {
  ASSERT_EQ(std::system("protoc --version > /dev/null 2>&1"), 0) << "protoc missing: scripts/setup.sh installs protobuf-compiler";
  Family f{"pacer_endpoint_responses", "h", MetricType::kCounter, "", {}, {}, {}};
  const std::string long_name(300, 'x');  // lengths past 127 take two varint bytes
  f.samples.push_back({{{"endpoint", long_name}}, 1e300});
  const std::string decoded = protoc_decode(encode_write_request({f}, 1));
  EXPECT_NE(decoded.find("value: \"" + long_name + "\""), std::string::npos) << decoded;
  EXPECT_NE(decoded.find("value: 1e+300"), std::string::npos) << decoded;
}

TEST(RemoteWrite, SnappyRoundTripsThroughTheLibrarysDecoder) {
  const std::string request = encode_write_request(families(), 1700000000123);
  const std::string body = write_request_body(families(), 1700000000123);
  EXPECT_NE(body, request);
  std::string back;
  ASSERT_TRUE(snappy_uncompress(body, back));
  EXPECT_EQ(back, request);
  std::string repetitive(100000, 'a');
  const std::string small = snappy_compress(repetitive);
  EXPECT_LT(small.size(), 10000u);
  ASSERT_TRUE(snappy_uncompress(small, back));
  EXPECT_EQ(back, repetitive);
  EXPECT_FALSE(snappy_uncompress("\xff\xff\xff\xff\xff garbage", back));
}

}  // namespace
}  // namespace pacer::prom
