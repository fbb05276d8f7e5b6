// TimerHeap and Agenda: due timers come out earliest first and only once due,
// a queued user resumes with what it was last queued for, a task's first step
// is due at its scheduled time, and the next due time is now while users wait.
#include "scenario/agenda.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "scenario/timer_heap.h"

namespace pacer::scenario {
namespace {

TEST(TimerHeap, GivesOnlyDueTimersEarliestFirst) {
  TimerHeap timers(2);  // more than reserved still fit
  EXPECT_EQ(timers.next_ns(), std::numeric_limits<TimeNs>::max());
  timers.add(1, 30);
  timers.add(2, 10);
  timers.add(3, 20);
  EXPECT_EQ(timers.next_ns(), 10);
  TimerHeap::Timer t{};
  EXPECT_FALSE(timers.pop_due(9, t));
  std::vector<int> users;
  while (timers.pop_due(25, t)) users.push_back(t.user);
  EXPECT_EQ(users, (std::vector<int>{2, 3}));
  EXPECT_EQ(timers.next_ns(), 30);
  ASSERT_TRUE(timers.pop_due(30, t));
  EXPECT_EQ(t.user, 1);
  EXPECT_EQ(t.at_ns, 30);
  EXPECT_TRUE(timers.empty());
}

TEST(TimerHeap, KeepsEveryTimerOfAUserForItsOwnerToSkip) {
  TimerHeap timers(4);
  timers.add(5, 100);
  timers.add(5, 50);  // the user's due time moved: the older timer stays until it is due
  TimerHeap::Timer t{};
  ASSERT_TRUE(timers.pop_due(200, t));
  EXPECT_EQ(t.at_ns, 50);
  ASSERT_TRUE(timers.pop_due(200, t));
  EXPECT_EQ(t.at_ns, 100);
  EXPECT_EQ(t.user, 5);
}

std::vector<User> make_users(int n) {
  std::vector<User> users(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) users[static_cast<std::size_t>(i)].index = i;
  return users;
}

TEST(Agenda, AUserQueuedTwiceResumesOnceWithWhatItWasLastQueuedFor) {
  std::vector<User> users = make_users(2);
  Agenda agenda(users.size());
  agenda.queue(users[1], Resume::kResponse);
  agenda.queue(users[0], Resume::kStart);
  agenda.queue(users[1], Resume::kNothing);
  EXPECT_EQ(users[1].state, User::State::kQueued);
  EXPECT_EQ(users[1].resume_kind, Resume::kNothing);
  ASSERT_TRUE(agenda.has_ready());
  EXPECT_EQ(agenda.pop_ready(), 1);
  EXPECT_EQ(agenda.pop_ready(), 0);
  EXPECT_FALSE(agenda.has_ready());
}

TEST(Agenda, ATaskGivenIsDueAtItsScheduledTime) {
  std::vector<User> users = make_users(1);
  User& u = users[0];
  u.task = 3;
  u.task_errors = 2;
  u.mark_ns = 500;
  Agenda agenda(users.size());
  agenda.give_task(u, 1'000);
  EXPECT_EQ(u.mark_ns, 1'000);
  EXPECT_EQ(u.task_start_ns, 1'000);
  EXPECT_TRUE(u.in_task);
  EXPECT_EQ(u.task, -1) << "the user loop names the task";
  EXPECT_EQ(u.task_errors, 0u);
  EXPECT_EQ(u.resume_kind, Resume::kTask);
  EXPECT_EQ(agenda.pop_ready(), 0);
}

TEST(Agenda, WakingASleeperGoesOnAndAThinkerBeginsItsNextTaskAtItsWakeTime) {
  std::vector<User> users = make_users(3);
  Agenda agenda(users.size());
  users[0].state = User::State::kSleeping;
  users[0].mark_ns = 70;
  users[1].state = User::State::kThinking;
  users[1].wake_ns = 90;
  users[2].state = User::State::kInFlight;  // not waiting on a timer: left alone
  for (User& u : users) agenda.wake(u);
  EXPECT_EQ(users[0].resume_kind, Resume::kNothing);
  EXPECT_EQ(users[0].mark_ns, 70) << "a sleep's end was set by u:sleep";
  EXPECT_EQ(users[1].resume_kind, Resume::kTask);
  EXPECT_EQ(users[1].task_start_ns, 90);
  EXPECT_EQ(users[2].state, User::State::kInFlight);
  EXPECT_EQ(agenda.pop_ready(), 0);
  EXPECT_EQ(agenda.pop_ready(), 1);
  EXPECT_FALSE(agenda.has_ready());
}

TEST(Agenda, IsDueNowWhileUsersAreQueuedElseAtItsEarliestTimer) {
  std::vector<User> users = make_users(2);
  Agenda agenda(users.size());
  EXPECT_EQ(agenda.next_due_ns(10), std::numeric_limits<TimeNs>::max());
  agenda.add_timer(1, 400);
  agenda.add_timer(0, 300);
  EXPECT_EQ(agenda.next_due_ns(10), 300);
  agenda.queue(users[0], Resume::kNothing);
  EXPECT_EQ(agenda.next_due_ns(10), 10);
  (void)agenda.pop_ready();
  TimerHeap::Timer t{};
  ASSERT_TRUE(agenda.pop_timer(350, t));
  EXPECT_EQ(t.user, 0);
  EXPECT_FALSE(agenda.pop_timer(350, t));
  EXPECT_EQ(agenda.next_due_ns(350), 400);
}

}  // namespace
}  // namespace pacer::scenario
