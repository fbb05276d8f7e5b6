// EventWait: a timeout is waited out in full (never early), to the sub-millisecond
// rather than rounded up to a whole millisecond, and a negative one waits for an event.
#include "net/event_wait.h"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

#include "core/clock.h"
#include "core/unique_fd.h"

namespace pacer::net {
namespace {

TEST(EventWait, WaitsTheTimeoutInFullAndNotUpToTheNextWholeMillisecond) {
  UniqueFd epoll_fd(::epoll_create1(EPOLL_CLOEXEC));
  ASSERT_TRUE(epoll_fd.valid());
  EventWait event_wait;
  epoll_event events[4];
  constexpr int kWaits = 20;
  int before_the_next_ms = 0;
  for (int i = 0; i < kWaits; ++i) {
    const TimeNs timeout_ns = 1 * kNsPerMs + (200 + 30 * i) * kNsPerUs;  // 1.2 .. 1.77 ms
    const TimeNs start_ns = monotonic_now_ns();
    ASSERT_EQ(event_wait.wait(epoll_fd.get(), events, 4, timeout_ns), 0);
    const TimeNs waited_ns = monotonic_now_ns() - start_ns;
    EXPECT_GE(waited_ns, timeout_ns) << "woke early";
    // Rounded up to whole milliseconds, a wait never ends before 2 ms.
    before_the_next_ms += waited_ns < 2 * kNsPerMs ? 1 : 0;
  }
  // Rounding would give none; a loaded machine (CI runs the e2e tests beside this)
  // wakes many waits late, so a tenth of them is the bound (9 of 20 were seen).
  EXPECT_GE(before_the_next_ms, kWaits / 10);
}

TEST(EventWait, NegativeTimeoutWaitsForAnEvent) {
  UniqueFd epoll_fd(::epoll_create1(EPOLL_CLOEXEC));
  UniqueFd wake_fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  ASSERT_TRUE(epoll_fd.valid() && wake_fd.valid());
  epoll_event registration{};
  registration.events = EPOLLIN;
  ASSERT_EQ(::epoll_ctl(epoll_fd.get(), EPOLL_CTL_ADD, wake_fd.get(), &registration), 0);
  const std::uint64_t one = 1;
  ASSERT_EQ(::write(wake_fd.get(), &one, sizeof one), static_cast<ssize_t>(sizeof one));
  EventWait event_wait;
  epoll_event events[4];
  EXPECT_EQ(event_wait.wait(epoll_fd.get(), events, 4, -1), 1);
}

}  // namespace
}  // namespace pacer::net
