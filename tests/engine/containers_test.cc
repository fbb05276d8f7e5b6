// The worker's allocation-free containers: the backlog ring and the intrusive
// connection lists.
#include <gtest/gtest.h>

#include "engine/connection.h"
#include "engine/time_ring.h"

namespace pacer::engine {
namespace {

TEST(TimeRing, IsAFifoThatRefusesWhenFull) {
  TimeRing ring(3);
  EXPECT_TRUE(ring.empty());
  EXPECT_TRUE(ring.push(1));
  EXPECT_TRUE(ring.push(2));
  EXPECT_TRUE(ring.push(3));
  EXPECT_TRUE(ring.full());
  EXPECT_FALSE(ring.push(4));
  EXPECT_EQ(ring.pop(), 1);
  EXPECT_TRUE(ring.push(5));  // wraps around
  EXPECT_EQ(ring.pop(), 2);
  EXPECT_EQ(ring.pop(), 3);
  EXPECT_EQ(ring.front(), 5);
  EXPECT_EQ(ring.pop(), 5);
  EXPECT_TRUE(ring.empty());
}

TEST(IntrusiveList, KeepsInsertionOrderAndRemovesFromAnywhere) {
  RequestSlot a, b, c;
  InFlightList list;
  list.push_back(a);
  list.push_back(b);
  list.push_back(c);
  EXPECT_EQ(list.size(), 3u);
  list.remove(b);
  EXPECT_FALSE(b.in_flight.linked);
  list.remove(b);  // removing twice is harmless
  EXPECT_EQ(list.pop_front(), &a);
  EXPECT_EQ(list.pop_front(), &c);
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.pop_front(), nullptr);
}

TEST(Connection, NumbersItsSlotsAsSessionTokensAndStartsWithAllFree) {
  Connection c(nullptr, 4);
  ASSERT_EQ(c.slots.size(), 4u);
  for (std::uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(c.slots[i].token, i);
    EXPECT_EQ(c.slots[i].connection, &c);
  }
  EXPECT_EQ(c.in_flight_count(), 0u);
  EXPECT_EQ(c.free_tokens.back(), 0u);  // the lowest token is used first
}

TEST(IntrusiveList, AConnectionOnTheIdleListIsIndependentOfItsSlotsInFlight) {
  Connection a(nullptr, 2);
  InFlightList in_flight;
  IdleList idle;
  in_flight.push_back(a.slots[0]);
  idle.push_back(a);
  in_flight.remove(a.slots[0]);
  EXPECT_TRUE(a.idle.linked);
  EXPECT_EQ(idle.front(), &a);
}

}  // namespace
}  // namespace pacer::engine
