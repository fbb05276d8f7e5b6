// read_to_end (src/core/read_fd.h): the whole input, the cap to the byte, a pipe
// that delivers in pieces, and a failed read's errno.
#include "core/read_fd.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>

#include "../support/text_fd.h"

namespace pacer {
namespace {

using pacer::testing::TextFd;

TEST(ReadToEnd, ReadsEverythingUpToTheCap) {
  const std::string text(200 * 1024 + 7, 'a');  // more than one 64 KiB read
  const TextFd in(text);
  const ReadToEnd got = read_to_end(in.get(), text.size());
  EXPECT_EQ(got.err, 0);
  EXPECT_FALSE(got.past_cap);
  EXPECT_EQ(got.bytes, text);
}

TEST(ReadToEnd, OneByteMoreThanTheCapIsPastIt) {
  const TextFd in("0123456789");
  const ReadToEnd got = read_to_end(in.get(), 9);
  EXPECT_TRUE(got.past_cap);
  EXPECT_EQ(got.bytes, "0123456789");  // the cap and one byte, never more
}

TEST(ReadToEnd, StopsReadingOneBytePastTheCap) {
  const TextFd in(std::string(100000, 'x'));
  const ReadToEnd got = read_to_end(in.get(), 10);
  EXPECT_TRUE(got.past_cap);
  EXPECT_EQ(got.bytes.size(), 11u);
}

TEST(ReadToEnd, TheLargestCapMeansNone) {
  const TextFd in("abc");
  const ReadToEnd got = read_to_end(in.get(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_FALSE(got.past_cap);
  EXPECT_EQ(got.bytes, "abc");
}

TEST(ReadToEnd, AnEmptyInputIsEmpty) {
  const TextFd in("");
  const ReadToEnd got = read_to_end(in.get(), 0);
  EXPECT_EQ(got.err, 0);
  EXPECT_FALSE(got.past_cap);
  EXPECT_TRUE(got.bytes.empty());
}

TEST(ReadToEnd, APipeIsReadUntilItsWriterCloses) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  std::thread writer([fd = fds[1]] {
    for (int i = 0; i < 50; ++i) EXPECT_EQ(::write(fd, "0123456789", 10), 10);
    ::close(fd);
  });
  const ReadToEnd got = read_to_end(fds[0], 1000);
  writer.join();
  ::close(fds[0]);
  EXPECT_EQ(got.err, 0);
  EXPECT_EQ(got.bytes.size(), 500u);
}

TEST(ReadToEnd, AFailedReadGivesItsErrno) {
  const int fd = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const ReadToEnd got = read_to_end(fd, 100);
  ::close(fd);
  EXPECT_EQ(got.err, EISDIR);
}

}  // namespace
}  // namespace pacer
