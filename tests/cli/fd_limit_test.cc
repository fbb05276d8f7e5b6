// The open-file limit check (src/cli/fd_limit.h). These tests change this
// process's RLIMIT_NOFILE soft limit and put it back.
#include "cli/fd_limit.h"

#include <sys/resource.h>

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace pacer::cli {
namespace {

rlimit current_limit() {
  rlimit limit{};
  EXPECT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  return limit;
}

TEST(FdLimit, NeedIsConnectionsPlusFourPerThreadPlusSlack) {
  EXPECT_EQ(fd_needed(100, 4), 148u);
  EXPECT_EQ(fd_needed(std::numeric_limits<int>::max(), std::numeric_limits<int>::max()),
            5ull * std::numeric_limits<int>::max() + 32);
}

TEST(FdLimit, SmallRunFitsTheLimit) {
  const rlimit before = current_limit();
  EXPECT_TRUE(ensure_fd_limit(10, 2).ok());
  EXPECT_GE(current_limit().rlim_cur, fd_needed(10, 2));
  if (before.rlim_cur >= fd_needed(10, 2)) {
    EXPECT_EQ(current_limit().rlim_cur, before.rlim_cur);
  }
}

TEST(FdLimit, SoftLimitIsRaisedWhenTheHardLimitAllows) {
  const rlimit original = current_limit();
  if (original.rlim_max != RLIM_INFINITY && original.rlim_max < 400) {
    GTEST_SKIP() << "hard limit " << original.rlim_max << " is too low for this test";
  }
  rlimit lowered = original;
  lowered.rlim_cur = 100;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);

  const Status status = ensure_fd_limit(200, 4);
  const rlim_t raised_to = current_limit().rlim_cur;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &original), 0);

  EXPECT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(raised_to, fd_needed(200, 4));
}

TEST(FdLimit, ConnectionsBeyondTheHardLimitAreRefusedWithAdvice) {
  const rlimit limit = current_limit();
  if (limit.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "no hard limit on open files";
  const int connections = std::numeric_limits<int>::max();
  const Status status = ensure_fd_limit(connections, 2);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::kBadArgument);
  const std::uint64_t needed = fd_needed(connections, 2);
  EXPECT_EQ(status.error().message,
            "-c 2147483647 needs about " + std::to_string(needed) +
                " open files but the hard limit is " + std::to_string(limit.rlim_max) +
                "; raise it (ulimit -n " + std::to_string(needed) +
                " or LimitNOFILE= in systemd, /etc/security/limits.conf) or lower -c");
  EXPECT_EQ(current_limit().rlim_cur, limit.rlim_cur);
}

}  // namespace
}  // namespace pacer::cli
