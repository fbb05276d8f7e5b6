// FixedRing, ReadyQueue and TaskBacklog: first in, first out across the wrap
// of the ring, a fixed room, a user queued at most once, and a task given up
// only once it has waited the limit.
#include "scenario/fixed_ring.h"

#include <gtest/gtest.h>

#include <vector>

#include "scenario/ready_queue.h"
#include "scenario/task_backlog.h"

namespace pacer::scenario {
namespace {

TEST(FixedRing, KeepsItemsInTheOrderTheyCameAcrossTheWrap) {
  FixedRing<int> ring(3);
  std::vector<int> out;
  for (int round = 0; round < 4; ++round) {  // the head goes round the ring several times
    ASSERT_TRUE(ring.push_back(round * 10 + 1));
    ASSERT_TRUE(ring.push_back(round * 10 + 2));
    out.push_back(ring.pop_front());
    ASSERT_TRUE(ring.push_back(round * 10 + 3));
    out.push_back(ring.pop_front());
    out.push_back(ring.pop_front());
  }
  EXPECT_EQ(out, (std::vector<int>{1, 2, 3, 11, 12, 13, 21, 22, 23, 31, 32, 33}));
  EXPECT_TRUE(ring.empty());
  EXPECT_EQ(ring.capacity(), 3u);
}

TEST(FixedRing, RefusesAnItemWhenFullAndKeepsWhatItHolds) {
  FixedRing<int> ring(2);
  ASSERT_TRUE(ring.push_back(7));
  ASSERT_TRUE(ring.push_back(8));
  EXPECT_TRUE(ring.full());
  EXPECT_FALSE(ring.push_back(9));
  EXPECT_EQ(ring.size(), 2u);
  EXPECT_EQ(ring.front(), 7);
  EXPECT_EQ(ring.pop_front(), 7);
  EXPECT_FALSE(ring.full());
  EXPECT_TRUE(ring.push_back(9));
  EXPECT_EQ(ring.pop_front(), 8);
  EXPECT_EQ(ring.pop_front(), 9);
  EXPECT_TRUE(ring.empty());
}

TEST(ReadyQueue, ResumesUsersInTheOrderTheyWereQueued) {
  ReadyQueue ready(4);
  for (int user : {2, 0, 3, 1}) EXPECT_TRUE(ready.push(user));
  EXPECT_EQ(ready.size(), 4u);  // room for every user at once
  std::vector<int> out;
  while (!ready.empty()) out.push_back(ready.pop());
  EXPECT_EQ(out, (std::vector<int>{2, 0, 3, 1}));
}

TEST(ReadyQueue, AUserQueuedAgainWhileWaitingKeepsItsFirstPlace) {
  ReadyQueue ready(3);
  EXPECT_TRUE(ready.push(1));
  EXPECT_TRUE(ready.push(2));
  EXPECT_FALSE(ready.push(1));
  EXPECT_EQ(ready.size(), 2u);
  EXPECT_EQ(ready.pop(), 1);
  EXPECT_TRUE(ready.push(1)) << "off the queue, it may be queued again";
  EXPECT_EQ(ready.pop(), 2);
  EXPECT_EQ(ready.pop(), 1);
  EXPECT_TRUE(ready.empty());
}

TEST(TaskBacklog, GivesTasksOldestFirstAndRefusesOnesPastItsRoom) {
  TaskBacklog backlog(2);
  EXPECT_TRUE(backlog.push(100));
  EXPECT_TRUE(backlog.push(200));
  EXPECT_FALSE(backlog.push(300)) << "full: the task is the owner's to give up";
  EXPECT_EQ(backlog.size(), 2u);
  TimeNs t = 0;
  ASSERT_TRUE(backlog.take(t));
  EXPECT_EQ(t, 100);
  ASSERT_TRUE(backlog.take(t));
  EXPECT_EQ(t, 200);
  EXPECT_FALSE(backlog.take(t));
  EXPECT_TRUE(backlog.empty());
}

TEST(TaskBacklog, ExpiresOnlyTasksThatWaitedTheLimit) {
  TaskBacklog backlog(4);
  backlog.push(100);
  backlog.push(105);
  TimeNs t = 0;
  EXPECT_FALSE(backlog.take_expired(109, 10, t)) << "the oldest waited 9 of 10";
  ASSERT_TRUE(backlog.take_expired(110, 10, t));
  EXPECT_EQ(t, 100);
  EXPECT_FALSE(backlog.take_expired(110, 10, t)) << "the next waited 5";
  ASSERT_TRUE(backlog.take_expired(110, 0, t)) << "a limit of 0 (the run's end) takes every task";
  EXPECT_EQ(t, 105);
  EXPECT_TRUE(backlog.empty());
}

TEST(TaskBacklog, HasRoomForOneTaskAtLeast) {
  TaskBacklog backlog(0);
  EXPECT_TRUE(backlog.push(1));
  EXPECT_FALSE(backlog.push(2));
}

}  // namespace
}  // namespace pacer::scenario
