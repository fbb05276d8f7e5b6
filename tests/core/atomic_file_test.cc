// Output files (src/core/atomic_file.h): a regular file is replaced whole by a
// rename; a symlink is followed to its target and stays a link; a device or a
// FIFO is written in place and never replaced by a regular file.
#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pacer {
namespace {

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "pacer_atomic_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  static std::string read(const std::string& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static struct stat lstat_of(const std::string& file) {
    struct stat st {};
    EXPECT_EQ(::lstat(file.c_str(), &st), 0) << file;
    return st;
  }
  std::string dir_;
};

TEST_F(AtomicFile, ARegularFileIsReplacedWholeAndKeepsItsPermissions) {
  { std::ofstream(path("r")) << "old contents, longer than the new"; }
  ASSERT_EQ(::chmod(path("r").c_str(), 0600), 0);
  const ino_t before = lstat_of(path("r")).st_ino;
  ASSERT_TRUE(write_file_atomically(path("r"), "new").ok());
  EXPECT_EQ(read(path("r")), "new");
  const struct stat after = lstat_of(path("r"));
  EXPECT_NE(after.st_ino, before);  // renamed over, not rewritten
  EXPECT_EQ(after.st_mode & 07777, 0600u);
}

TEST_F(AtomicFile, ASymlinkIsFollowedAndStaysALink) {
  { std::ofstream(path("target")) << "old"; }
  ASSERT_EQ(::symlink("target", path("link").c_str()), 0);
  ASSERT_TRUE(write_file_atomically(path("link"), "through the link").ok());
  EXPECT_TRUE(S_ISLNK(lstat_of(path("link")).st_mode));
  EXPECT_EQ(read(path("target")), "through the link");
}

TEST_F(AtomicFile, ADanglingSymlinkCreatesItsTargetAndAChainIsFollowed) {
  ASSERT_EQ(::mkdir(path("sub").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("sub/created", path("dangling").c_str()), 0);
  ASSERT_EQ(::symlink(path("dangling").c_str(), path("chain").c_str()), 0);
  ASSERT_TRUE(write_file_atomically(path("chain"), "made").ok());
  EXPECT_TRUE(S_ISLNK(lstat_of(path("chain")).st_mode));
  EXPECT_TRUE(S_ISLNK(lstat_of(path("dangling")).st_mode));
  EXPECT_EQ(read(path("sub/created")), "made");
}

TEST_F(AtomicFile, ACharacterDeviceBehindALinkIsWrittenInPlaceNotReplaced) {
  ASSERT_EQ(::symlink("/dev/null", path("null").c_str()), 0);
  ASSERT_TRUE(write_file_atomically(path("null"), "discarded").ok());
  EXPECT_TRUE(S_ISLNK(lstat_of(path("null")).st_mode));
  struct stat dev {};
  ASSERT_EQ(::stat("/dev/null", &dev), 0);
  EXPECT_TRUE(S_ISCHR(dev.st_mode));
  EXPECT_FALSE(std::filesystem::exists("/dev/null.tmp." + std::to_string(::getpid())));
}

TEST_F(AtomicFile, AFifoIsWrittenInPlaceForItsReader) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  // The reader is open first (non-blocking), so the write neither waits nor
  // overflows the pipe: no thread, and no hang if the FIFO were replaced.
  const int reader = ::open(path("fifo").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  const Status written = write_file_atomically(path("fifo"), "through the pipe");
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe");
  EXPECT_TRUE(S_ISFIFO(lstat_of(path("fifo")).st_mode));
}

TEST_F(AtomicFile, ALinkToAnOpenPipeThroughProcIsWrittenInPlaceAsDevStdoutWouldBe) {
  // /dev/stdout is a link to /proc/self/fd/1, whose own "target" (pipe:[N]) is
  // no path: the kernel must follow it. Tested on a pipe of our own.
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
  ASSERT_EQ(::symlink(("/proc/self/fd/" + std::to_string(fds[1])).c_str(), path("stdout").c_str()), 0);
  EXPECT_TRUE(check_writable_path(path("stdout"), "-o").ok());
  const Status written = write_file_atomically(path("stdout"), "to the pipe");
  char buf[64] = {};
  const ssize_t n = ::read(fds[0], buf, sizeof buf);
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "to the pipe");
  EXPECT_TRUE(S_ISLNK(lstat_of(path("stdout")).st_mode));
}

TEST_F(AtomicFile, ADirectoryIsAnErrorNamingThePath) {
  ASSERT_EQ(::mkdir(path("d").c_str(), 0755), 0);
  const Status written = write_file_atomically(path("d"), "x");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, "cannot write '" + path("d") + "': Is a directory");
}

TEST_F(AtomicFile, ASymlinkLoopIsAnError) {
  ASSERT_EQ(::symlink("b", path("a").c_str()), 0);
  ASSERT_EQ(::symlink("a", path("b").c_str()), 0);
  const Status written = write_file_atomically(path("a"), "x");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, "cannot write '" + path("a") + "': Too many levels of symbolic links");
  EXPECT_FALSE(check_writable_path(path("a"), "-o").ok());
}

TEST_F(AtomicFile, CheckWritablePathRefusesADirectoryAndAcceptsADeviceBehindALink) {
  ASSERT_EQ(::mkdir(path("d").c_str(), 0755), 0);
  const Status dir = check_writable_path(path("d"), "-o");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(dir.error().message, "-o: cannot write '" + path("d") + "': it is a directory");
  ASSERT_EQ(::symlink("/dev/null", path("null").c_str()), 0);
  EXPECT_TRUE(check_writable_path(path("null"), "-o").ok());
}

TEST_F(AtomicFile, AReadOnlyFileIsNeverReplacedEvenByRoot) {
  { std::ofstream(path("ro")) << "precious"; }
  ASSERT_EQ(::chmod(path("ro").c_str(), 0444), 0);
  const ino_t before = lstat_of(path("ro")).st_ino;
  const Status checked = check_writable_path(path("ro"), "--html");
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().kind, ErrorKind::kBadArgument);
  EXPECT_NE(checked.error().message.find("--html: cannot write '" + path("ro") + "': the file is read-only"),
            std::string::npos)
      << checked.error().message;
  EXPECT_FALSE(write_file_atomically(path("ro"), "replaced").ok());
  EXPECT_EQ(read(path("ro")), "precious");
  EXPECT_EQ(lstat_of(path("ro")).st_ino, before);
}

TEST_F(AtomicFile, OneNewFileUnderOtherSpellingsResolvesToOnePath) {
  ASSERT_EQ(::mkdir(path("d").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("d", path("link").c_str()), 0);
  const auto resolved = [](const std::string& p) { return resolve_output_path(p).value(); };
  EXPECT_EQ(resolved(path("x")), resolved(dir_ + "/./x"));
  EXPECT_EQ(resolved(path("d/../y")), resolved(path("y")));
  EXPECT_EQ(resolved(path("link/z")), resolved(path("d/z")));
  EXPECT_NE(resolved(path("x")), resolved(path("y")));
}

TEST_F(AtomicFile, AWriteErrorNamesTheOption) {
  const Status written = write_output_file("--hdr", "/dev/full", "x");
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().kind, ErrorKind::kRuntime);
  EXPECT_EQ(written.error().message, "--hdr: cannot write '/dev/full': No space left on device");
}

}  // namespace
}  // namespace pacer
