// See user_connections.h.
#include "engine/drive/user_connections.h"

#include <algorithm>

#include "engine/conn/pool.h"
#include "scenario/users.h"

namespace pacer::engine {

UserConnections::UserConnections(const SharedRun& shared, int users, ConnectionPool& pool)
    : pool_(pool), links_(shared, users), pending_(static_cast<std::size_t>(users), Pending::kNone) {
  closes_.reserve(static_cast<std::size_t>(users));
}

void UserConnections::prepare(scenario::Users& users) {
  users_ = &users;
  for (const auto& c : pool_.all()) c->http1->set_capture(&users.user(c->index).capture);
}

void UserConnections::start(TimeNs now_ns) { pool_.start(now_ns, ConnectionPool::Opening::kOnDemand); }

Connection& UserConnections::own(int user) { return pool_.at(user); }

void UserConnections::connect(int user) { open(own(user)); }

Connection* UserConnections::for_request(int user, std::uint8_t id, const scenario::Origin& origin) {
  if (id == 0) return &own(user);  // opened when the user started, reopened by the pool
  int index = links_.index_of(user, id);
  if (index < 0) {
    const OriginRoute* route = links_.route(id, origin);
    if (route == nullptr) return nullptr;
    Connection& made = pool_.add(*route, origin.target);
    links_.place(user, id, made.index);
    pending_.resize(std::max(pending_.size(), static_cast<std::size_t>(made.index) + 1), Pending::kNone);
    if (users_ != nullptr) made.http1->set_capture(&users_->user(user).capture);  // its responses are the user's
    index = made.index;
  }
  Connection& c = pool_.at(index);
  open(c);
  return &c;
}

void UserConnections::open(Connection& c) {
  Pending& pending = pending_[static_cast<std::size_t>(c.index)];
  if (pending != Pending::kNone) {
    pending = Pending::kCloseThenOpen;  // a released user's close first
    return;
  }
  if (c.state != Connection::State::kClosed) return;
  const bool was_opening = opening_;
  opening_ = true;
  pool_.open(c);
  opening_ = was_opening;
}

void UserConnections::defer_close(int index) {
  Pending& pending = pending_[static_cast<std::size_t>(index)];
  if (pending == Pending::kNone) {
    if (pool_.at(index).state == Connection::State::kClosed) return;  // nothing to close
    closes_.push_back(index);
  }
  pending = Pending::kClose;  // a new user's open asked meanwhile is its, and it stopped too
}

void UserConnections::close_released() {
  // Inside a close, or an open the driver asked for (a connect done at once
  // reaches the driver): the outer call carries them out once it returned.
  if (releasing_ || opening_) return;
  while (!closes_.empty()) {
    releasing_ = true;  // the driver's forget: what the close drops is no failure
    for (const int index : closes_) {
      Pending& pending = pending_[static_cast<std::size_t>(index)];
      if (pending == Pending::kCloseThenOpen) reopens_.push_back(index);
      pending = Pending::kNone;
      Connection& c = pool_.at(index);
      if (c.state != Connection::State::kClosed) pool_.close(c);
    }
    closes_.clear();
    releasing_ = false;
    // A new user on the index asked for it: it opens as for any user (an open
    // may reach the driver, which may release again: the loop takes those).
    for (const int index : reopens_) open(pool_.at(index));
    reopens_.clear();
  }
}

}  // namespace pacer::engine
