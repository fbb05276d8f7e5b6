// -b/--body sources and their size cap (src/cli/body_source.h), directly and
// through --max-request-body on the command line.
#include "cli/body_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::parse_args;

// A file in the test's temporary directory holding `bytes`, removed at the end.
class BodyFile {
 public:
  explicit BodyFile(const std::string& bytes) {
    path_ = ::testing::TempDir() + "pacer_body_cap_XXXXXX";
    const int fd = ::mkstemp(path_.data());
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    ::close(fd);
  }
  ~BodyFile() { ::unlink(path_.c_str()); }
  BodyFile(const BodyFile&) = delete;
  BodyFile& operator=(const BodyFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Result<std::string> read_body(const std::string& value, std::uint64_t max_bytes, const std::string& stdin_text = "") {
  const pacer::testing::TextFd in(stdin_text);
  return read_body_argument(value, "-b", in.get(), max_bytes);
}

TEST(BodySource, TheDefaultCapIs64MiB) { EXPECT_EQ(kDefaultMaxRequestBodyBytes, 64u << 20); }

TEST(BodySource, AFileOfExactlyTheCapIsRead) {
  const BodyFile file(std::string(1024, 'a'));
  auto body = read_body("@" + file.path(), 1024);
  ASSERT_TRUE(body.ok()) << body.error().message;
  EXPECT_EQ(body->size(), 1024u);
}

TEST(BodySource, ARegularFileLargerThanTheCapIsRefusedNamingFileAndCap) {
  const BodyFile file(std::string(1025, 'a'));
  auto body = read_body("@" + file.path(), 1024);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().kind, ErrorKind::kBadInput);
  EXPECT_EQ(body.error().message, "-b: body file '" + file.path() +
                                      "' is 1025 bytes, more than the 1 KiB cap on a body (raise it with "
                                      "--max-request-body)");
}

TEST(BodySource, ADeviceThatNeverEndsIsRefusedOnceItPassesTheCap) {
  auto body = read_body("@/dev/zero", 200'000);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().kind, ErrorKind::kBadInput);
  EXPECT_EQ(body.error().message,
            "-b: body file '/dev/zero' goes on past the 200000 bytes cap on a body (raise it with --max-request-body)");
}

TEST(BodySource, StdinLongerThanTheCapIsRefusedAndStdinWithinItIsRead) {
  auto refused = read_body("@-", 10, std::string(11, 'y'));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "-b: standard input (@-) goes on past the 10 bytes cap on a body (raise it with --max-request-body)");
  auto read = read_body("@-", 10, std::string(10, 'y'));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, std::string(10, 'y'));
}

TEST(BodySource, MaxRequestBodyRaisesOrLowersTheCapInAnyOptionOrder) {
  const BodyFile file(std::string(3000, 'z'));
  auto lowered = parse_args({"-b", "@" + file.path(), "--max-request-body", "2k", "http://h/"});
  ASSERT_FALSE(lowered.ok());
  EXPECT_EQ(lowered.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(lowered.error().message.find("more than the 2 KiB cap"), std::string::npos) << lowered.error().message;
  auto raised = parse_args({"--max-request-body=4k", "-b", "@" + file.path(), "http://h/"});
  ASSERT_TRUE(raised.ok()) << raised.error().message;
  ASSERT_TRUE(raised->run.body.has_value());
  EXPECT_EQ(raised->run.body->size(), 3000u);
  EXPECT_EQ(raised->run.max_request_body_bytes, 4096u);
}

TEST(BodySource, DevZeroOnTheCommandLineIsRefusedWithTheDefaultCap) {
  auto parsed = parse_args({"-b", "@/dev/zero", "http://h/"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(parsed.error().message.find("'/dev/zero' goes on past the 64 MiB cap"), std::string::npos)
      << parsed.error().message;
}

TEST(BodySource, AMalformedCapIsRefusedNamingTheOption) {
  auto parsed = parse_args({"--max-request-body", "lots", "http://h/"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(parsed.error().message, "--max-request-body: 'lots' is not a size (expected e.g. 4096, 64k, 16M, 1G)");
}

}  // namespace
}  // namespace pacer::cli
