// A scenario's users' connections (issue 45): which connection is user i's (its
// own, connection i of the worker's pool, to the run's origin) and which is user
// i's to origin k (drive/origin_links.h, added by the pool at the user's first
// request there), opening each when its user needs it, and closing a released
// user's connections. The users' driver asks; only this room (and the worker)
// talks to the pool.
//
// Closing is deferred: release() only lists the user's connections, and the
// worker carries the closes out (close_released) after the driver's call has
// returned, as it writes what the exchange was given (SentWriter::write_sent). So a
// close, whose PoolEvents::closing runs back into the driver through the worker,
// never runs while the driver is inside its own call. A new user spawned on the
// same index before the close ran gets no connection that is about to close:
// its own and its other origins' connections open again after the close (the
// close fails nothing: what was in flight or connecting is dropped, not failed,
// and its request waits for the new connection). One worker thread.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/conn/connection.h"
#include "engine/drive/origin_links.h"
#include "engine/run_plan.h"
#include "scenario/origins.h"

namespace pacer::scenario {
class Users;
}

namespace pacer::engine {

class ConnectionPool;

class UserConnections {
 public:
  // users: the worker's users (closed: its share of -u; open: of --max-users),
  // the pool's first connections, user i's connection i.
  UserConnections(const SharedRun& shared, int users, ConnectionPool& pool);

  // Before the run: each connection's responses are captured into its user's
  // (the Set-Cookie the jar reads, the body a scenario reads).
  void prepare(scenario::Users& users);
  // The run starts: every connection stays closed until its user opens it.
  void start(TimeNs now_ns);

  // User `user`'s own connection (its -n reservation is held there).
  Connection& own(int user);
  // The user starts: its own connection opens (after a close still pending on it).
  void connect(int user);
  // The connection for the user's request to origin `id` (0: the run's; else
  // `origin`'s, made at its first use and opened when closed). Null when that
  // origin cannot be reached (reason(id) says why). The request goes out when
  // the connection is usable, else once it opens (LoadDriver::fill).
  Connection* for_request(int user, std::uint8_t id, const scenario::Origin& origin);
  // Open, and not waiting for a released user's close: it may take a request.
  bool usable(const Connection& c) const {
    return c.state == Connection::State::kOpen && pending_[static_cast<std::size_t>(c.index)] == Pending::kNone;
  }
  // Which user a connection is, and to which origin (0: the run's).
  int user_of(const Connection& c) const { return links_.user_of(c); }
  std::uint8_t origin_of(const Connection& c) const { return links_.origin_of(c); }
  const std::string& reason(std::uint8_t id) const { return links_.reason(id); }
  const OriginLinks& links() const { return links_; }
  // A connect (or handshake) of c failed: its origin's next address next time.
  void connect_failed(const Connection& c) { links_.connect_failed(c); }

  // The user stopped (scenario::Port::release): its connections close once the
  // driver's call returned (close_released). each(index) is called for each of
  // them, its own first.
  template <typename F>
  void release(int user, F each) {
    defer_close(user);
    each(user);
    links_.each_of(user, [&](int index) {
      defer_close(index);
      each(index);
    });
  }
  // The worker, after each driver call: the released users' connections close
  // (a close that runs into the driver's forget meanwhile is a release's:
  // releasing()), then those a new user on the same index asked for open again.
  void close_released();
  // A close under way is a release's (or the run's end): what it drops is no failure.
  bool releasing() const { return releasing_ || ended_; }
  // The run ended: the worker closes every connection next.
  void end() { ended_ = true; }

 private:
  enum class Pending : std::uint8_t { kNone, kClose, kCloseThenOpen };
  void defer_close(int index);
  // Opens c, or after its pending close when there is one.
  void open(Connection& c);

  ConnectionPool& pool_;
  OriginLinks links_;                 // the users' connections to other origins
  scenario::Users* users_ = nullptr;  // their captures
  std::vector<Pending> pending_;      // by connection index
  std::vector<int> closes_;           // connection indexes, in release order
  std::vector<int> reopens_;          // close_released's: closed, to open again
  bool releasing_ = false;            // inside close_released's closes
  bool opening_ = false;              // inside pool.open: a connect done at once may reach the driver
  bool ended_ = false;
};

}  // namespace pacer::engine
