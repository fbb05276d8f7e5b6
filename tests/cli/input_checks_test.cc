// Checks made once all run options are known (src/cli/input_checks.h): -H
// headers that would contradict the request's framing, and every output file,
// both through the command line as a user gives them.
#include "cli/input_checks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::Args;
using pacer::testing::parse_args;

std::string refusal(const Args& args) {
  auto parsed = parse_args(args);
  EXPECT_FALSE(parsed.ok()) << "accepted";
  if (parsed.ok()) return {};
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadArgument) << parsed.error().message;
  return parsed.error().message;
}

bool accepted(const Args& args) {
  auto parsed = parse_args(args);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return parsed.ok();
}

TEST(RequestHeaders, AContentLengthThatIsNotTheBodysSizeIsRefused) {
  EXPECT_EQ(refusal({"-H", "Content-Length: 5", "-b", "hello-world", "http://h/"}),
            "-H: 'Content-Length: 5' contradicts the body (-b), which is 11 bytes; pacer sets Content-Length from "
            "the body itself (drop the header)");
  EXPECT_NE(refusal({"-H", "content-length: 5, 5", "-b", "hello", "http://h/"}).find("contradicts the body"),
            std::string::npos);
}

TEST(RequestHeaders, AContentLengthThatIsTheBodysSizeIsAccepted) {
  EXPECT_TRUE(accepted({"-H", "Content-Length: 11", "-b", "hello-world", "http://h/"}));
  EXPECT_TRUE(accepted({"-H", "CONTENT-LENGTH: 005", "-b", "hello", "http://h/"}));
  EXPECT_TRUE(accepted({"-H", "Content-Length: 0", "-b", "", "http://h/"}));
}

TEST(RequestHeaders, AContentLengthWithoutABodyMustBeZero) {
  EXPECT_TRUE(accepted({"-H", "Content-Length: 0", "http://h/"}));
  EXPECT_EQ(refusal({"-H", "Content-Length: 10", "http://h/"}),
            "-H: 'Content-Length: 10' on a request without a body (-b): the server would wait for bytes that never "
            "come (drop the header, or give the body with -b)");
}

TEST(RequestHeaders, TransferEncodingIsAlwaysRefused) {
  EXPECT_EQ(refusal({"-H", "Transfer-Encoding: chunked", "-b", "hello", "http://h/"}),
            "-H: 'Transfer-Encoding: chunked' contradicts the framing pacer sends (the body whole, with a "
            "Content-Length; never chunked): drop the header");
  EXPECT_NE(refusal({"-H", "transfer-encoding: gzip", "http://h/"}).find("'transfer-encoding: gzip' contradicts"),
            std::string::npos);
}

TEST(RequestHeaders, Http2RefusesEveryConnectionSpecificHeader) {
  for (const char* header : {"Connection: keep-alive", "Keep-Alive: timeout=5", "Proxy-Connection: close",
                             "Transfer-Encoding: chunked", "Upgrade: websocket", "TE: gzip"}) {
    const std::string message = refusal({"--http2", "-H", header, "http://h/"});
    EXPECT_NE(message.find(std::string("-H: '") + header + "' is a connection-specific header, which HTTP/2 forbids"),
              std::string::npos)
        << message;
  }
  EXPECT_TRUE(accepted({"--http2", "-H", "TE: trailers", "http://h/"}));
}

TEST(RequestHeaders, Http11KeepsConnectionAndUpgradeHeaders) {
  EXPECT_TRUE(accepted({"-H", "Connection: close", "-H", "Upgrade: h2c", "http://h/"}));
}

// A temporary directory for output paths, removed with what the test left in it.
class OutputDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "pacer_outputs_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(OutputDir, EveryOutputOptionNamingADirectoryIsRefusedBeforeTheRun) {
  ASSERT_EQ(::mkdir(path("d").c_str(), 0755), 0);
  EXPECT_EQ(refusal({"-o", path("d"), "http://h/"}), "-o: cannot write '" + path("d") + "': it is a directory");
  EXPECT_EQ(refusal({"--hdr", path("d"), "http://h/"}), "--hdr: cannot write '" + path("d") + "': it is a directory");
  EXPECT_EQ(refusal({"--timeseries", path("d"), "http://h/"}),
            "--timeseries: cannot write '" + path("d") + "': it is a directory");
}

TEST_F(OutputDir, ASymlinkToADirectoryIsRefusedToo) {
  ASSERT_EQ(::mkdir(path("d").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("d", path("link").c_str()), 0);
  EXPECT_EQ(refusal({"-o", path("link"), "http://h/"}), "-o: cannot write '" + path("link") + "': it is a directory");
}

TEST_F(OutputDir, AMissingDirectoryIsRefusedNamingIt) {
  EXPECT_EQ(refusal({"--hdr", path("missing/x.hgrm"), "http://h/"}),
            "--hdr: cannot create '" + path("missing/x.hgrm") + "' (" + path("missing") +
                ": No such file or directory)");
}

TEST_F(OutputDir, TwoOutputsNamingOneFileAreRefused) {
  EXPECT_EQ(refusal({"-o", path("r"), "--hdr", path("r"), "http://h/"}),
            "--hdr: '" + path("r") + "' is the file -o writes too; give each output its own file");
}

TEST_F(OutputDir, NewFilesSymlinksAndDevicesAreAccepted) {
  ASSERT_EQ(::symlink("/dev/null", path("null").c_str()), 0);
  ASSERT_EQ(::symlink("target.json", path("dangling").c_str()), 0);
  EXPECT_TRUE(accepted({"-o", path("new.json"), "--hdr", path("null"), "--timeseries", path("dangling"),
                        "http://h/"}));
  EXPECT_TRUE(accepted({"--timeseries", "-", "http://h/"}));
}

}  // namespace
}  // namespace pacer::cli
