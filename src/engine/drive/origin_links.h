// A scenario's users' connections to other origins than the run's URL (issue 42).
// User i owns connection i of the worker's pool, to the run's origin; a user
// that names another origin (u:get("http://other:8097/x"), scenario/origins.h)
// gets a connection of its own to it, which the users' connections
// (drive/user_connections.h) have the pool add at the user's first request there
// (ConnectionPool::add) and keep alive for its later ones; this map says which
// connection that is and what route it dials, and never reaches the pool. A run
// that names no other origin allocates nothing here, and Connection is no larger.
//
// Per origin, once per worker, at its first use: its addresses (resolved on the
// worker's thread; a host that does not resolve, or has no address of --bind's
// family, fails each request to it as a `connect` error), and for https its TLS
// context (SNI and the certificate's name check are its host; the run's -k,
// --cacert, --cert/--key and --tls-* apply; --sni is the run's host's only) and
// the TLS sessions its connections resume. A connect that fails moves the
// origin on to its next address. One worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/conn/connection.h"
#include "engine/conn/route.h"
#include "engine/run_plan.h"
#include "scenario/origins.h"

namespace pacer::engine {

class OriginLinks {
 public:
  // users: the worker's users (connections below it are theirs, to the run's origin).
  OriginLinks(const SharedRun& shared, int users) : shared_(shared), users_(users) {}

  // User `user`'s connection to origin `id` (> 0): its index, -1 when it has none yet.
  int index_of(int user, std::uint8_t id) const {
    if (by_user_.empty()) return -1;
    const auto it = by_user_.find(key(user, id));
    return it == by_user_.end() ? -1 : it->second;
  }
  // The route a new connection to origin `id` dials (made at the origin's first
  // use); null when it cannot be reached at all, reason(id) then says why.
  const OriginRoute* route(std::uint8_t id, const scenario::Origin& origin);
  // The pool added connection `index` (the next one) for the user's requests to origin `id`.
  void place(int user, std::uint8_t id, int index);
  const std::string& reason(std::uint8_t id) const { return links_[id]->reason; }
  // Which user a connection is, and to which origin (0: the run's).
  int user_of(const Connection& c) const {
    return c.index < users_ ? c.index : places_[static_cast<std::size_t>(c.index - users_)].user;
  }
  std::uint8_t origin_of(const Connection& c) const {
    return c.index < users_ ? 0 : places_[static_cast<std::size_t>(c.index - users_)].origin;
  }
  // A connect (or handshake) to c's origin failed: its next address is dialled next.
  void connect_failed(const Connection& c);
  // The indexes of the user's connections to other origins (to close them when it stops).
  template <typename F>
  void each_of(int user, F f) const {
    if (by_user_.empty()) return;
    for (std::size_t id = 1; id < links_.size(); ++id) {
      if (const int index = index_of(user, static_cast<std::uint8_t>(id)); index >= 0) f(index);
    }
  }

 private:
  struct Place {
    int user = 0;
    std::uint8_t origin = 0;
  };
  struct Link {
    std::vector<net::Address> addresses;
    std::size_t next = 0;                    // the address route.address is
    OriginRoute route;
    std::unique_ptr<net::TlsContext> tls;    // https
    net::TlsSessionCache sessions;
    std::string reason;                      // not empty: it cannot be reached
  };
  static std::uint64_t key(int user, std::uint8_t id) {
    return (static_cast<std::uint64_t>(user) << 8) | id;
  }
  // The origin's addresses and TLS, at its first use (its reason when it fails).
  Link& link(std::uint8_t id, const scenario::Origin& origin);

  const SharedRun& shared_;
  const int users_;
  std::vector<std::unique_ptr<Link>> links_;         // by origin id; made at its first use
  std::vector<Place> places_;                        // by connection index - users_
  std::unordered_map<std::uint64_t, int> by_user_;   // key(user, origin) -> connection index
};

}  // namespace pacer::engine
