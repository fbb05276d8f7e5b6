// UserConnections (issue 45): a scenario's users' connections, opened when their
// user needs them and closed after the driver's call that stopped the user has
// returned (the worker's close_released), never inside it; a new user spawned on
// a stopped user's index before that close gets its connections again after it,
// and the close drops what it held without failing it (releasing()). A fake I/O
// engine: no network traffic.
#include "engine/drive/user_connections.h"

#include <gtest/gtest.h>

#include <vector>

#include "cli/units.h"
#include "engine/conn/pool.h"
#include "engine/exchange/exchange.h"
#include "part_fakes.h"

namespace pacer::engine {
namespace {

// The part tests' pool, with a driver whose calls are marked: a close that
// reaches the driver (PoolEvents::closing) while it is inside its own call fails.
struct RoomParts : testing::PoolRig {
  UserConnections users{run.shared, 2, pool};  // two users: connections 0 and 1 are theirs

  bool inside_driver = false;     // the driver's call is running
  std::vector<int> closed;        // connections closed, in order
  std::vector<bool> closed_as_release;  // releasing() at each close: the driver's forget drops, not fails

  RoomParts() : PoolRig(2) {
    users.start(clock.now);
    on_closing = [this](Connection& c) {
      EXPECT_FALSE(inside_driver) << "connection " << c.index << " closed inside the driver's call";
      closed.push_back(c.index);
      closed_as_release.push_back(users.releasing());
    };
  }
  // A driver's call (a user's steps): f runs inside it, then the worker carries out the closes.
  template <typename F>
  void driver_call(F f) {
    inside_driver = true;
    f();
    inside_driver = false;
    users.close_released();
  }
};

using testing::origin_at;

TEST(UserConnections, AStoppedUsersConnectionsCloseAfterTheDriversCallNotInsideIt) {
  RoomParts p;
  const scenario::Origin other = origin_at("http://127.0.0.1:8097/");
  p.driver_call([&] {
    p.users.connect(1);
    ASSERT_NE(p.users.for_request(1, 1, other), nullptr);
  });
  ASSERT_EQ(p.pool.at(1).state, Connection::State::kConnecting);
  ASSERT_EQ(p.pool.all().size(), 3U);
  std::vector<int> settled;
  p.driver_call([&] {
    p.users.release(1, [&](int index) { settled.push_back(index); });
    EXPECT_TRUE(p.closed.empty()) << "the close waits for the driver's call to return";
    EXPECT_NE(p.pool.at(1).state, Connection::State::kClosed);
  });
  EXPECT_EQ(settled, (std::vector<int>{1, 2})) << "its own connection first, then its other origin's";
  EXPECT_EQ(p.closed, (std::vector<int>{1, 2}));
  EXPECT_EQ(p.closed_as_release, (std::vector<bool>{true, true})) << "what the close drops is no failure";
  EXPECT_EQ(p.pool.at(1).state, Connection::State::kClosed);
  EXPECT_EQ(p.pool.at(2).state, Connection::State::kClosed);
  EXPECT_FALSE(p.users.releasing());
  p.users.close_released();
  EXPECT_EQ(p.closed.size(), 2U) << "each close once";
}

TEST(UserConnections, ANewUserOnAStoppedUsersIndexKeepsItsConnectionsThroughTheOldUsersClose) {
  RoomParts p;
  const scenario::Origin other = origin_at("http://127.0.0.1:8097/");
  p.driver_call([&] {
    p.users.connect(0);
    ASSERT_NE(p.users.for_request(0, 1, other), nullptr);
  });
  p.pool.on_connected(p.pool.at(0), 0);  // user 0's own connection opens
  ASSERT_EQ(p.pool.at(0).state, Connection::State::kOpen);
  ASSERT_TRUE(p.users.usable(p.pool.at(0)));
  const int attached = p.engine.attached;
  // One call: user 0 stops, a new user spawns on index 0 and asks for both origins.
  p.driver_call([&] {
    p.users.release(0, [](int) {});
    p.users.connect(0);
    Connection* own = p.users.for_request(0, 0, other);
    Connection* away = p.users.for_request(0, 1, other);
    ASSERT_NE(away, nullptr);
    EXPECT_FALSE(p.users.usable(*own)) << "not the old user's connection, about to close";
    EXPECT_EQ(away->index, 2) << "the same index: the old user's, closing";
    EXPECT_EQ(p.engine.attached, attached) << "nothing opens before the close";
  });
  EXPECT_EQ(p.closed, (std::vector<int>{0, 2}));
  EXPECT_EQ(p.closed_as_release, (std::vector<bool>{true, true}));
  // Then both open again for the new user: its request waits for them, not failed.
  EXPECT_EQ(p.pool.at(0).state, Connection::State::kConnecting);
  EXPECT_EQ(p.pool.at(2).state, Connection::State::kConnecting);
  EXPECT_EQ(p.engine.attached, attached + 2);
  p.pool.on_connected(p.pool.at(0), 0);
  EXPECT_TRUE(p.users.usable(p.pool.at(0)));
  p.users.close_released();
  EXPECT_EQ(p.closed.size(), 2U) << "the new user's connections are not closed";
}

TEST(UserConnections, AUserStoppedAgainBeforeTheCloseLeavesItsConnectionClosed) {
  RoomParts p;
  p.driver_call([&] { p.users.connect(0); });
  p.driver_call([&] {
    p.users.release(0, [](int) {});
    p.users.connect(0);             // a new user on the index...
    p.users.release(0, [](int) {});  // ...stopped in the same call
  });
  EXPECT_EQ(p.closed, (std::vector<int>{0}));
  EXPECT_EQ(p.pool.at(0).state, Connection::State::kClosed);
}

TEST(UserConnections, AClosedConnectionOfAStoppedUserNeedsNoClose) {
  RoomParts p;
  p.driver_call([&] { p.users.release(1, [](int) {}); });
  EXPECT_TRUE(p.closed.empty());
  p.driver_call([&] { p.users.connect(1); });
  EXPECT_EQ(p.pool.at(1).state, Connection::State::kConnecting) << "a new user's connection opens at once";
}

}  // namespace
}  // namespace pacer::engine
