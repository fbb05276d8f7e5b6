// See pool.h.
#include "engine/conn/pool.h"

#include <algorithm>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "engine/give_up.h"
#include "net/bind_list.h"
#include "net/receive_stamp.h"
#include "net/socket.h"
#include "report/units.h"

namespace pacer::engine {

namespace {

constexpr TimeNs kBackoffBaseNs = 10 * kNsPerMs;
constexpr TimeNs kBackoffMaxNs = 1 * kNsPerS;

bool backoff_later(const Connection* a, const Connection* b) { return a->reconnect_at_ns > b->reconnect_at_ns; }

}  // namespace

ConnectionPool::ConnectionPool(const SharedRun& shared, int worker_index, Transport& transport, LoopClock& clock,
                               Recorder& recorder)
    : shared_(shared),
      worker_index_(worker_index),
      transport_(transport),
      clock_(clock),
      recorder_(recorder) {}

void ConnectionPool::prepare(io::Engine& engine, int count, const net::Address& address, SessionFactory& sessions,
                             Exchange* exchange, PoolEvents& events) {
  engine_ = &engine;
  events_ = &events;
  sessions_ = &sessions;
  exchange_ = exchange;
  address_ = address;
  base_count_ = static_cast<std::size_t>(count);
  route_ = shared_.route;
  // Each worker starts its round of --bind's addresses at its own place, so the
  // run's connections spread evenly over them.
  if (route_ != nullptr && !route_->bind.empty()) next_bind_ = static_cast<std::size_t>(worker_index_) % route_->bind.size();
  connections_.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    connections_.push_back(std::make_unique<Connection>(exchange, shared_.slots_per_connection));
    connections_.back()->index = i;
    sessions.make(*connections_.back());
  }
  backoff_.reserve(static_cast<std::size_t>(count));
  opened_once_.assign(static_cast<std::size_t>(count), false);
  connect_timeout_reason_ =
      fmt::format("connect: timed out after {} (--timeout)", report::format_duration_short(shared_.options.connect.timeout_ns));
}

Connection& ConnectionPool::add(const OriginRoute& route, const Target& wire_target) {
  connections_.push_back(std::make_unique<Connection>(exchange_, shared_.slots_per_connection));
  Connection& c = *connections_.back();
  c.index = static_cast<int>(connections_.size() - 1);
  sessions_->make(c, &wire_target);
  routes_.push_back(&route);
  return c;
}

void ConnectionPool::start(TimeNs now_ns, Opening opening) {
  idle_since_ns_ = now_ns;
  open_all_ = opening != Opening::kOnDemand;
  if (!open_all_) return;
  // Every worker of a run opens alike: with kTogether all of them arrive at the barrier.
  if (opening == Opening::kTogether) {
    gate_.arm(connections_.size(), now_ns, shared_.probe_connect_ns, shared_.start_barrier);
  }
  for (auto& c : connections_) open(*c);
}

void ConnectionPool::adopt(UniqueFd fd, TimeNs connect_ns, net::TlsStream tls, TimeNs handshake_ns) {
  adopted_fd_ = std::move(fd);
  adopted_connect_ns_ = connect_ns;
  adopted_tls_ = std::move(tls);
  adopted_handshake_ns_ = handshake_ns;
}

void ConnectionPool::open(Connection& c) {
  if (adopted_fd_.valid() && route_of(c) == nullptr) {  // the probe's socket is to the run's address
    open_adopted(c);
  } else {
    start_connect(c);
  }
}

void ConnectionPool::start_connect(Connection& c) {
  if (!events_->wants_connection(c)) {
    c.state = Connection::State::kClosed;
    open_gate_when_due(c.index);
    return;
  }
  if (transport_.kind() == Transport::Kind::kQuic) {
    transport_.start_quic(c, address_, next_source());  // UDP and the QUIC handshake
    return;
  }
  c.connect_start_ns = clock_.now;
  // The kernel alone would wait minutes (a SYN dropped by a full accept queue
  // is retried for about two): expire_connects gives up after --timeout.
  if (dial(c)) connecting_.push_back(c);
}

bool ConnectionPool::dial(Connection& c) {
  const OriginRoute* route = route_of(c);
  const net::Address& to = route != nullptr ? route->address : address_;
  const int fd = net::open_tcp_socket(to.family());
  if (fd < 0) {
    connect_failed(c, errno);
    return false;
  }
  if (const net::Address* local = next_source(); local != nullptr) {
    if (const int err = net::bind_before_connect(fd, *local); err != 0) {
      ::close(fd);  // not attached yet
      connect_failed(c, err, "bind (--bind)");
      return false;
    }
  }
  // Reads then say when a response arrived. If refused, the wake-up time stands
  // in and coalescing stays off.
  net::enable_receive_stamps(fd);
  if (!engine_->attach(c, fd, transport_.mode(route), false)) {
    connect_failed(c, errno);  // closes fd with c (the engine's close)
    return false;
  }
  c.state = Connection::State::kConnecting;
  if (const int err = engine_->connect(c, to.sockaddr_ptr(), to.length); err == 0) {
    on_connected(c, 0);
    return false;
  } else if (err != EINPROGRESS) {
    connect_failed(c, err);
    return false;
  }
  return true;
}

void ConnectionPool::redial_stalled() {
  const TimeNs stall = gate_.stall_ns();
  if (stall == kNeverNs) return;
  // Oldest first: once one has connected for less than a stall, so have the rest.
  for (Connection* c = connecting_.front(); c != nullptr && clock_.now - c->connect_start_ns >= stall;) {
    Connection* next = c->connecting.next;
    // Still SYN_SENT in the kernel (not answered and only not yet heard of)?
    if (gate_.redial_due(c->index, clock_.now)) {
      if (!net::syn_unanswered(c->fd)) {
        gate_.answered(c->index);  // connected: its report is on its way
      } else {
        gate_.redialled(c->index, clock_.now);
        recorder_.add(&stats::Counters::redials, 1);
        // A fresh socket in the same place on the connect list: its start (and so
        // its --timeout) is still the first dial's.
        transport_.close(*c);
        engine_->close(*c);
        if (!dial(*c)) connecting_.remove(*c);  // done at once (on_connected or a failure took it off)
      }
    }
    c = next;
  }
}

void ConnectionPool::open_adopted(Connection& c) {
  const int fd = adopted_fd_.release();
  (void)next_source();  // the probe left from --bind's first address: the round goes on after it
  c.connect_start_ns = clock_.now - adopted_connect_ns_;
  net::enable_receive_stamps(fd);  // as in start_connect
  if (!engine_->attach(c, fd, transport_.mode(), true)) {
    connect_failed(c, errno);
    return;
  }
  c.state = Connection::State::kConnecting;
  if (!adopted_tls_.is_established() && !(route_ != nullptr && route_->tunnels())) {
    on_connected(c, net::socket_error(c.fd));
    return;
  }
  if (!adopted_tls_.is_established()) {  // plain bytes through the probe's tunnel (a script's)
    recorder_.connections().connected(clock_.now, adopted_connect_ns_);
    note_adopted_tunnel();
    established(c);
    return;
  }
  // https: the probe already did the handshake (and the proxy's tunnel, if any).
  recorder_.connections().connected(clock_.now, adopted_connect_ns_);
  note_adopted_tunnel();
  c.tls = std::move(adopted_tls_);
  recorder_.connections().handshaken(clock_.now, adopted_handshake_ns_, false);
  established(c);
}

void ConnectionPool::on_connected(Connection& c, int err) {
  connecting_.remove(c);
  if (err != 0) {
    connect_failed(c, err);
    return;
  }
  recorder_.connections().connected(clock_.now, clock_.now - c.connect_start_ns);
  transport_.connected(c, route_of(c));  // https: the handshake first
}

void ConnectionPool::established(Connection& c) {
  c.connect_failures = 0;
  c.state = Connection::State::kOpen;
  c.established_ns = clock_.now;
  if (const auto i = static_cast<std::size_t>(c.index); i < opened_once_.size() && !opened_once_[i]) {
    opened_once_[i] = true;
    if (++opened_once_count_ == opened_once_.size() && open_all_) recorder_.connections().all_connected(clock_.now);
  }
  if (open_count_++ == 0 && shared_.give_up != nullptr) {
    shared_.give_up->set_idle_since(worker_index_, GiveUpWatch::kHasOpen);  // the give-up rule
  }
  c.write_blocked = false;
  if (gate_.hold(c)) {
    open_gate_when_due(c.index);
    return;
  }
  events_->opened(c);
}

void ConnectionPool::open_gate_when_due(int finished_index) {
  gate_.connect_finished(finished_index);
  if (!gate_.due(clock_.now)) return;
  for (Connection* held : gate_.release()) {
    if (held->state == Connection::State::kOpen) events_->opened(*held);
  }
}

void ConnectionPool::connect_failed(Connection& c, int err, const char* what) {
  if (err == EADDRNOTAVAIL && route_ != nullptr) {
    // Out of ephemeral ports (issue 33): its own class, with the arithmetic and the fix.
    recorder_.count(&stats::ErrorCounts::ports, clock_.now);
    recorder_.connections().note_error(0, route_->ports_exhausted.c_str());
  } else {
    recorder_.count(&stats::ErrorCounts::connect, clock_.now);
    recorder_.connections().note_error(err, what);
  }
  retry_later(c);
  open_gate_when_due(c.index);
}

const net::Address* ConnectionPool::next_source() {
  if (route_ == nullptr || route_->bind.empty()) return nullptr;
  const net::Address* local = &route_->bind[next_bind_];
  next_bind_ = next_bind_ + 1 == route_->bind.size() ? 0 : next_bind_ + 1;
  return local;
}

void ConnectionPool::note_adopted_tunnel() {
  if (route_ != nullptr && route_->probe_tunnel_ns >= 0) {
    recorder_.connections().tunneled(clock_.now, route_->probe_tunnel_ns);
  }
}

void ConnectionPool::retry_later(Connection& c) {
  close(c);
  const int shift = std::min(c.connect_failures, 7);
  ++c.connect_failures;
  c.reconnect_at_ns = clock_.now + std::min(kBackoffMaxNs, kBackoffBaseNs << shift);
  c.state = Connection::State::kBackoff;
  backoff_.push_back(&c);
  std::push_heap(backoff_.begin(), backoff_.end(), backoff_later);
}

void ConnectionPool::expire_connects() {
  if (gate_.holding()) {
    redial_stalled();
    open_gate_when_due(-1);  // its deadline
  }
  while (!connecting_.empty() && connecting_.front()->connect_start_ns + shared_.options.connect.timeout_ns <= clock_.now) {
    connect_failed(*connecting_.front(), 0, connect_timeout_reason_.c_str());
  }
}

void ConnectionPool::run_reconnects() {
  while (!backoff_.empty() && backoff_.front()->reconnect_at_ns <= clock_.now) {
    std::pop_heap(backoff_.begin(), backoff_.end(), backoff_later);
    Connection* c = backoff_.back();
    backoff_.pop_back();
    // Stale when closed meanwhile (a scenario's user stopped: Port::release).
    if (c->state == Connection::State::kBackoff) start_connect(*c);
  }
}

TimeNs ConnectionPool::next_due_ns() const {
  TimeNs next = connecting_.empty() ? kNeverNs : connecting_.front()->connect_start_ns + shared_.options.connect.timeout_ns;
  if (!backoff_.empty()) next = std::min(next, backoff_.front()->reconnect_at_ns);
  next = std::min({next, gate_.deadline_ns(), gate_.barrier_poll_ns(clock_.now)});
  if (const TimeNs stall = gate_.stall_ns(); stall != kNeverNs && !connecting_.empty()) {
    next = std::min(next, clock_.now + StartGate::kMinStallNs / 2);  // the stalled connects' redials
  }
  // The give-up check, once this worker has had no open connection long enough
  // (past it, the 100 ms rate samples and the reconnects bring the flag).
  if (open_count_ == 0 && shared_.give_up != nullptr) {
    const TimeNs give_up_at = idle_since_ns_ + shared_.options.connect.give_up_ns;
    if (give_up_at > clock_.now) next = std::min(next, give_up_at);
  }
  return next;
}

bool ConnectionPool::gives_up() {
  GiveUpWatch* watch = shared_.give_up;
  if (watch == nullptr) return false;
  if (watch->gave_up()) return true;
  const TimeNs period = shared_.options.connect.give_up_ns;
  if (open_count_ > 0 || clock_.now - idle_since_ns_ < period) return false;
  return watch->all_idle_for(clock_.now, period);
}

void ConnectionPool::close(Connection& c) {
  gate_.forget(c);
  events_->closing(c);
  connecting_.remove(c);
  transport_.close(c);
  if (c.state == Connection::State::kOpen && --open_count_ == 0) {
    idle_since_ns_ = clock_.now;
    if (shared_.give_up != nullptr) shared_.give_up->set_idle_since(worker_index_, clock_.now);
  }
  engine_->close(c);  // the socket and whatever the engine has in flight for it
  c.state = Connection::State::kClosed;
}

void ConnectionPool::close_all() {
  for (const auto& c : connections_) close(*c);
  engine_->finish();
  connections_.clear();
  connections_.shrink_to_fit();
}

void ConnectionPool::reopen(Connection& c) {
  close(c);
  start_connect(c);
}

}  // namespace pacer::engine
