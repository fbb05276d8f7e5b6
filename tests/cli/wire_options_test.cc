// --unix-socket, --follow-redirects, --compressed (src/cli/wire_options.cc)
// through the full parser: their values, their bounds, what they cannot be
// combined with, and the Accept-Encoding header --compressed adds.
#include "cli/wire_options.h"

#include <gtest/gtest.h>

#include <strings.h>

#include <algorithm>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::parse_args;

std::string error_of(const pacer::testing::Args& args) {
  auto parsed = parse_args(args);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : parsed.error().message;
}

int accept_encoding_headers(const Config& c, std::string* value) {
  int n = 0;
  for (const Header& h : c.headers) {
    if (strcasecmp(h.name.c_str(), "Accept-Encoding") != 0) continue;
    ++n;
    *value = h.value;
  }
  return n;
}

TEST(WireOptions, EachOptionSetsItsField) {
  auto parsed = parse_args({"--unix-socket", "/run/app.sock", "--follow-redirects", "5", "--compressed",
                            "http://localhost/x"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->run.unix_socket_path, "/run/app.sock");
  EXPECT_EQ(parsed->run.follow_redirects, 5);
  EXPECT_TRUE(parsed->run.compressed);
}

TEST(WireOptions, CompressedAsksForWhatPacerDecodesUnlessAHeaderAlreadyAsks) {
  std::string value;
  auto plain = parse_args({"http://localhost/"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(accept_encoding_headers(plain->run, &value), 0);
  auto compressed = parse_args({"--compressed", "http://localhost/"});
  ASSERT_TRUE(compressed.ok());
  EXPECT_EQ(accept_encoding_headers(compressed->run, &value), 1);
  EXPECT_EQ(value, "gzip, deflate, br, zstd");
  auto own = parse_args({"--compressed", "-H", "accept-encoding: br", "http://localhost/"});
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(accept_encoding_headers(own->run, &value), 1);
  EXPECT_EQ(value, "br");
}

TEST(WireOptions, BadValuesAndCombinationsAreRefusedNamingTheFlag) {
  EXPECT_EQ(error_of({"--follow-redirects", "31", "http://h/"}),
            "--follow-redirects: redirects to follow must be from 0 to 30, got 31");
  EXPECT_NE(error_of({"--follow-redirects", "x", "http://h/"}).find("--follow-redirects"), std::string::npos);
  EXPECT_NE(error_of({"--follow-redirects", "2", "--pipeline", "4", "http://h/"}).find("not with --pipeline"),
            std::string::npos);
  EXPECT_NE(error_of({"--follow-redirects", "2", "--disable-keepalive", "http://h/"}).find("keep-alive"),
            std::string::npos);
  EXPECT_EQ(error_of({"--unix-socket", "", "http://h/"}), "--unix-socket: the socket path is empty");
  EXPECT_NE(error_of({"--unix-socket", "/" + std::string(120, 'x'), "http://h/"}).find("longer than the 107"),
            std::string::npos);
}

TEST(WireOptions, NoneIsTakenWithHttp3WhichWouldIgnoreIt) {
  for (const pacer::testing::Args& wire : {pacer::testing::Args{"--follow-redirects", "2"},
                                           pacer::testing::Args{"--compressed"},
                                           pacer::testing::Args{"--unix-socket", "/run/app.sock"}}) {
    pacer::testing::Args args = wire;
    args.insert(args.end(), {"--http3", "https://h/"});
    EXPECT_EQ(error_of(args), wire.front() + ": not with --http3 (HTTP/1.1 and HTTP/2 only)");
  }
}

TEST(WireOptions, ZeroRedirectsIsOffAndHttp2MayFollow) {
  auto off = parse_args({"--follow-redirects", "0", "--pipeline", "4", "http://h/"});
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_EQ(off->run.follow_redirects, 0);
  auto h2 = parse_args({"--follow-redirects", "3", "--http2", "--streams", "8", "http://h/"});
  ASSERT_TRUE(h2.ok()) << h2.error().message;
}

}  // namespace
}  // namespace pacer::cli
