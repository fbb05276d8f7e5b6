// OriginLinks (issue 42): a scenario user's connections to other origins than
// the run's, added to the pool by the users' connections (UserConnections) at
// the user's first request there and opened, found again after, mapped back to
// their user and origin, each dialling its origin's address with its origin's
// TLS. A fake I/O engine: no network traffic.
#include "engine/drive/origin_links.h"

#include "engine/conn/pool.h"
#include "engine/drive/user_connections.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cli/units.h"
#include "engine/exchange/exchange.h"
#include "part_fakes.h"

namespace pacer::engine {
namespace {

// Two users (connections 0 and 1 are theirs) over the part tests' pool.
struct OriginParts : testing::PoolRig {
  UserConnections users{run.shared, 2, pool};
  const OriginLinks& links = users.links();

  OriginParts() : PoolRig(2) { users.start(clock.now); }
};

using testing::origin_at;

TEST(OriginLinks, AUsersFirstRequestToAnOriginMakesItsConnectionPastTheUsersOwn) {
  OriginParts p;
  const scenario::Origin other = origin_at("http://127.0.0.1:8097/");
  Connection* c = p.users.for_request(1, 1, other);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->index, 2) << "after the two users' own connections";
  EXPECT_EQ(c->state, Connection::State::kConnecting) << "it opens for the request";
  EXPECT_EQ(p.engine.attached, 1);
  EXPECT_EQ(p.links.user_of(*c), 1);
  EXPECT_EQ(p.links.origin_of(*c), 1);
  EXPECT_EQ(p.links.user_of(p.pool.at(1)), 1);
  EXPECT_EQ(p.links.origin_of(p.pool.at(1)), 0);
  // Again: the same connection, nothing made or dialled.
  EXPECT_EQ(p.users.for_request(1, 1, other), c);
  EXPECT_EQ(p.pool.all().size(), 3U);
  EXPECT_EQ(p.engine.attached, 1);
  // Another user: a connection of its own.
  Connection* d = p.users.for_request(0, 1, other);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d, c);
  EXPECT_EQ(p.links.user_of(*d), 0);
}

TEST(OriginLinks, AnAddedConnectionDialsItsOriginsAddressAndThePlainOneHasNoTls) {
  OriginParts p;
  Connection* c = p.users.for_request(0, 1, origin_at("http://127.0.0.1:8097/"));
  ASSERT_NE(c, nullptr);
  const OriginRoute* route = p.pool.route_of(*c);
  ASSERT_NE(route, nullptr);
  EXPECT_EQ(route->tls, nullptr);
  EXPECT_EQ(p.pool.route_of(p.pool.at(0)), nullptr) << "a user's own connection goes the run's way";
  EXPECT_EQ(c->state, Connection::State::kConnecting);
  EXPECT_EQ(p.engine.connect_port, 8097);
  EXPECT_EQ(c->mode, io::Mode::kStream);
}

TEST(OriginLinks, AnHttpsOriginHasItsOwnTlsContextForItsHostAndReadsOnReadiness) {
  OriginParts p;
  p.run.config.tls_verify = false;  // no trust store needed to build the context
  Connection* c = p.users.for_request(0, 2, origin_at("https://127.0.0.1:8443/"));
  ASSERT_NE(c, nullptr) << p.links.reason(2);
  const OriginRoute* route = p.pool.route_of(*c);
  ASSERT_NE(route, nullptr);
  ASSERT_NE(route->tls, nullptr);
  EXPECT_EQ(route->tls->server_name(), "127.0.0.1");
  EXPECT_FALSE(route->tls->sends_sni()) << "an address is no SNI name";
  EXPECT_EQ(c->mode, io::Mode::kReadiness);
  EXPECT_EQ(p.engine.connect_port, 8443);
}

TEST(OriginLinks, EachOfListsAUsersAddedConnectionsOnly) {
  OriginParts p;
  Connection* a = p.users.for_request(1, 1, origin_at("http://127.0.0.1:8097/"));
  Connection* b = p.users.for_request(1, 3, origin_at("http://127.0.0.1:8098/"));
  (void)p.users.for_request(0, 1, origin_at("http://127.0.0.1:8097/"));
  std::vector<int> of_user1;
  p.links.each_of(1, [&](int index) { of_user1.push_back(index); });
  EXPECT_EQ(of_user1, (std::vector<int>{a->index, b->index}));
  std::vector<int> none;
  OriginLinks empty(p.run.shared, 2);
  empty.each_of(0, [&](int index) { none.push_back(index); });
  EXPECT_TRUE(none.empty());
}

TEST(OriginLinks, AFailedConnectMovesTheOriginToItsNextAddress) {
  OriginParts p;
  // "localhost" may have one address or two (127.0.0.1, ::1): the route's address changes only with two.
  Connection* c = p.users.for_request(0, 1, origin_at("http://localhost:8097/"));
  ASSERT_NE(c, nullptr) << p.links.reason(1);
  const auto addresses = net::resolve("localhost", 8097);
  ASSERT_TRUE(addresses);
  const net::Address before = p.pool.route_of(*c)->address;
  p.users.connect_failed(*c);
  const net::Address after = p.pool.route_of(*c)->address;
  const bool moved = before.length != after.length || std::memcmp(&before.storage, &after.storage, before.length) != 0;
  EXPECT_EQ(moved, addresses->size() > 1);
}

}  // namespace
}  // namespace pacer::engine
