// --http2, --streams, --pipeline (src/cli/protocol_options.cc) through the full parser.
#include "cli/protocol_options.h"

#include <gtest/gtest.h>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::parse_args;

TEST(ProtocolOptions, Http2WithStreamsKeepsConnectionsAsConnections) {
  auto parsed = parse_args({"--http2", "--streams", "10", "-c", "4", "http://127.0.0.1:1/"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->run.http2);
  EXPECT_EQ(parsed->run.streams, 10);
  EXPECT_EQ(parsed->run.connections, 4);
  EXPECT_EQ(parsed->run.requests_per_connection(), 10);
}

TEST(ProtocolOptions, DefaultsAreOneRequestPerConnectionOverHttp1) {
  auto parsed = parse_args({"http://127.0.0.1:1/"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->run.http2);
  EXPECT_EQ(parsed->run.requests_per_connection(), 1);
}

TEST(ProtocolOptions, PipelineSetsTheHttp1Depth) {
  auto parsed = parse_args({"--pipeline", "8", "http://127.0.0.1:1/"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->run.requests_per_connection(), 8);
}

TEST(ProtocolOptions, StreamsOutsideTheirBoundsNameTheFlag) {
  EXPECT_EQ(parse_streams("0", "--streams").error().message,
            "--streams: streams per connection must be from 1 to 1000, got 0");
  EXPECT_FALSE(parse_streams("1001", "--streams").ok());
  EXPECT_EQ(parse_streams("1000", "--streams").value(), 1000);
  EXPECT_EQ(parse_pipeline("65", "--pipeline").error().message,
            "--pipeline: pipeline depth must be from 1 to 64, got 65");
}

TEST(ProtocolOptions, StreamsWithoutHttp2IsRefused) {
  auto parsed = parse_args({"--streams", "4", "http://127.0.0.1:1/"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(parsed.error().message, "--streams: needs --http2 or --http3 (for HTTP/1.1 see --pipeline)");
}

// --http3 (issue 19): https:// only, --streams yes, --pipeline/--http2/scripts no.
TEST(ProtocolOptions, Http3NeedsHttps) {
  auto parsed = parse_args({"--http3", "http://127.0.0.1:1/"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(parsed.error().message, "--http3: needs an https:// URL (QUIC always runs TLS 1.3), got http://127.0.0.1:1/");
}

TEST(ProtocolOptions, Http3RefusesPipelineAndHttp2) {
  auto pipelined = parse_args({"--http3", "--pipeline", "2", "https://127.0.0.1:1/"});
  ASSERT_FALSE(pipelined.ok());
  EXPECT_EQ(pipelined.error().message, "--pipeline: HTTP/1.1 only; with --http3 use --streams");
  auto both = parse_args({"--http3", "--http2", "https://127.0.0.1:1/"});
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().message, "--http3: cannot be combined with --http2 (one HTTP version per run)");
}

TEST(ProtocolOptions, Http3TakesStreams) {
  auto parsed = parse_args({"--http3", "--streams", "8", "https://127.0.0.1:1/"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->run.http3);
  EXPECT_EQ(parsed->run.requests_per_connection(), 8);
  EXPECT_STREQ(parsed->run.protocol_name(), "h3");
}

TEST(ProtocolOptions, PipelineWithHttp2IsRefused) {
  auto parsed = parse_args({"--http2", "--pipeline", "4", "http://127.0.0.1:1/"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message, "--pipeline: HTTP/1.1 only; with --http2 use --streams");
}

TEST(ProtocolOptions, PipelineWithoutKeepAliveIsRefused) {
  auto parsed = parse_args({"--pipeline", "4", "--disable-keepalive", "http://127.0.0.1:1/"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().message.find("--disable-keepalive"), std::string::npos);
}

}  // namespace
}  // namespace pacer::cli
