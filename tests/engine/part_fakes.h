// Fakes for testing a worker's parts one at a time (tests/engine/*_part_test.cc):
// an io::Engine that connects nothing and records what it is asked, a protocol
// session that records submits and answers on demand, and recording LinkEvents,
// PoolEvents and LoadDriver. A PartRun holds a Config and the SharedRun built
// from it, as engine::run would build it; a TransportRig the transport and its
// neighbours over a FakeEngine, and a PoolRig a pool over one, routing as the
// worker does. Test thread only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cli/units.h"
#include "core/config.h"
#include "engine/conn/links.h"
#include "engine/conn/pool.h"
#include "engine/conn/read_budget.h"
#include "engine/conn/session_factory.h"
#include "engine/conn/transport.h"
#include "engine/drive/driver.h"
#include "engine/loop/clock.h"
#include "engine/record/recorder.h"
#include "engine/record/wire_tap.h"
#include "engine/run_plan.h"
#include "io/engine.h"
#include "net/address.h"
#include "load/schedule.h"
#include "proto/session.h"
#include "scenario/origins.h"
#include "stats/name_table.h"
#include "targets/request_set.h"

namespace pacer::engine::testing {

// The run as engine::run shares it with its workers, without a network.
struct PartRun {
  Config config;
  std::atomic<bool> stop{false};
  stats::NameTable names{100};
  std::unique_ptr<targets::RequestSet> requests;
  std::optional<load::RateProfile> profile;
  SharedRun shared;

  // A closed-loop run of http://127.0.0.1:1/ recording from record_from_ns, ending at end_ns.
  explicit PartRun(TimeNs record_from_ns = 0, TimeNs end_ns = kNeverNs) {
    config.target.scheme = "http";
    config.target.host = "127.0.0.1";
    config.target.port = 1;
    config.target.path = "/";
    config.target.url = "http://127.0.0.1:1/";
    config.timeout_ns = 100 * kNsPerMs;
    requests = std::make_unique<targets::RequestSet>(config, names);
    shared.config = &config;
    plan();
    shared.requests = requests.get();
    shared.names = &names;
    shared.stop = &stop;
    shared.record_from_ns = record_from_ns;
    shared.end_ns = end_ns;
  }
  // The parts' options from config (again, after a test changed it).
  void plan() { shared.options = part_options(config); }
  // The open model at rate_per_s from start_ns (the schedule's time 0).
  void open_model(double rate_per_s, TimeNs duration_ns) {
    config.load_model = LoadModel::kConstant;
    config.rate_per_s = rate_per_s;
    profile = load::RateProfile::constant(rate_per_s, duration_ns);
    shared.profile = &*profile;
  }
};

// Connects nothing: connect() answers connect_result (EINPROGRESS: a kConnected
// event would tell); writes take everything (or would block, or fail, as told);
// reads hand out `incoming` one chunk at a time, then the peer's close when
// told, else nothing.
class FakeEngine final : public io::Engine {
 public:
  int connect_result = EINPROGRESS;
  bool attach_ok = true;
  int attached = 0;
  int closed = 0;
  std::uint16_t connect_port = 0;  // the last IPv4 connect's port
  std::string written;
  std::vector<std::string> incoming;  // the reads to come, in order
  bool peer_closes = false;           // after `incoming`: EOF
  net::IoStatus write_status = net::IoStatus::kOk;

  io::EngineKind kind() const override { return io::EngineKind::kEpoll; }
  bool attach(io::Channel& channel, int fd, io::Mode mode, bool) override {
    channel.fd = fd;
    channel.mode = mode;
    ++attached;
    if (!attach_ok) errno = EMFILE;
    return attach_ok;
  }
  int connect(io::Channel&, const sockaddr* to, socklen_t) override {
    if (to->sa_family == AF_INET) connect_port = ntohs(reinterpret_cast<const sockaddr_in*>(to)->sin_port);
    return connect_result;
  }
  io::Received read(io::Channel&, net::TlsStream&) override {
    io::Received r;
    if (!incoming.empty()) {
      reading_ = std::move(incoming.front());
      incoming.erase(incoming.begin());
      r.io.status = net::IoStatus::kOk;
      r.io.bytes = reading_.size();
      r.data = reading_.data();
      r.drained = incoming.empty() && !peer_closes;
      return r;
    }
    r.io.status = peer_closes ? net::IoStatus::kClosed : net::IoStatus::kWantRead;
    return r;
  }
  net::IoResult write(io::Channel&, net::TlsStream&, std::span<const char> bytes) override {
    net::IoResult r;
    r.status = write_status;
    if (write_status != net::IoStatus::kOk) {
      r.err = ECONNRESET;
      return r;
    }
    written.append(bytes.data(), bytes.size());
    r.bytes = bytes.size();
    return r;
  }
  void close(io::Channel& channel) override {
    if (channel.fd >= 0) ::close(channel.fd);
    channel.fd = -1;
    ++closed;
  }
  int submits = 0;               // submit() calls
  TimeNs last_wait_ns = -1;      // the last wait's timeout
  void submit() override { ++submits; }
  int wait(TimeNs timeout_ns, io::Events&) override {
    last_wait_ns = timeout_ns;
    return 0;
  }

 private:
  std::string reading_;  // the chunk read() handed out
};

// A session that records what it was asked to send and says what it is told.
class FakeSession final : public proto::Session {
 public:
  std::uint32_t capacity_left = 1;  // requests it takes (0: `Connection: close` seen)
  bool cancel_keeps_connection = false;
  std::vector<std::uint32_t> submitted;  // tokens, in order
  std::string output;
  std::string received;           // every byte receive() was given
  bool parse_ok = true;           // receive()'s answer
  bool finished = false;          // finish() was called

  void reset() override { output.clear(); }
  std::uint32_t capacity() const override { return capacity_left; }
  void submit(std::uint32_t token, std::uint32_t) override {
    submitted.push_back(token);
    output += "R";
  }
  std::span<const char> pending_output() override { return output; }
  void consume(std::size_t bytes) override { output.erase(0, bytes); }
  bool receive(const char* data, std::size_t n, proto::SessionEvents&) override {
    received.append(data, n);
    return parse_ok;
  }
  bool finish(proto::SessionEvents&) override {
    finished = true;
    return true;
  }
  bool cancel(std::uint32_t) override { return cancel_keeps_connection; }
  const char* error_reason() const override { return "fake"; }
};

// Records every report; routes nothing unless a test wires it.
struct RecordingLinks final : LinkEvents {
  int established_count = 0, retried = 0, broken = 0, reopened = 0, readied = 0, peer_closes = 0;
  ErrorField last_error = nullptr;
  void established(Connection&) override { ++established_count; }
  void retry_later(Connection&) override { ++retried; }
  void broke(Connection&, ErrorField error) override {
    ++broken;
    last_error = error;
  }
  void reopen(Connection&) override { ++reopened; }
  void peer_closed(Connection&) override { ++peer_closes; }
  void ready(Connection&) override { ++readied; }
};

// A driver that sends nothing by itself and records how requests ended.
struct RecordingDriver final : LoadDriver {
  bool accepts_put_back = true;
  std::vector<int> statuses;
  std::vector<TimeNs> done_ns;
  std::vector<ErrorField> errors;
  std::vector<TimeNs> put_back_t_sched;

  void start(ConnectionPool&) override {}
  bool wants_connection(Connection&) override { return true; }
  void fill(Connection&) override {}
  void completed(Connection&, const RequestSlot&, int status, TimeNs done, bool) override {
    statuses.push_back(status);
    done_ns.push_back(done);
  }
  void failed(Connection&, const RequestSlot&, ErrorField error, bool) override { errors.push_back(error); }
  bool put_back(RequestSlot& slot, bool) override {
    if (accepts_put_back) put_back_t_sched.push_back(slot.t_sched);
    return accepts_put_back;
  }
  void forget(Connection&) override {}
  void on_turn(TurnPhase) override {}
  TimeNs next_due_ns() const override { return kNeverNs; }
  LoadProgress progress() const override { return {}; }
  void gauges(IntervalGauges&) const override {}
  scenario::ScenarioStats* stop() override { return nullptr; }
};

// The transport and its neighbours as a worker makes them, over a FakeEngine:
// the run, the loop's clock and read budget, a recorder and a wire tap.
struct TransportRig {
  PartRun run;
  LoopClock clock;
  ReadBudget budget;
  Recorder recorder{run.shared};
  Transport transport{run.shared, clock, recorder, budget};
  WireTap tap{run.shared, recorder, 0};
  FakeEngine engine;

  // The recorder prepared, the transport reporting to `links` and feeding
  // `wire_tap` (null: tap), the clock read.
  void prepare_transport(LinkEvents& links, WireTap* wire_tap = nullptr) {
    recorder.prepare();
    transport.prepare(engine, links, wire_tap != nullptr ? *wire_tap : tap);
    clock.refresh();
  }
};

// A pool of `connections` (to 127.0.0.1:1, never connected unless the engine
// says so) over a TransportRig, whose events go where the worker routes them,
// but a failure only reopens and nothing is filled; the pool's opened and
// closing are counted (and `on_closing` told), and it is wanted while `wanted` says so.
struct PoolRig : TransportRig, LinkEvents, PoolEvents {
  ConnectionPool pool{run.shared, 0, transport, clock, recorder};
  std::unique_ptr<SessionFactory> sessions;
  bool wanted = true;
  int opened_count = 0, closing_count = 0;
  std::function<void(Connection&)> on_closing;

  explicit PoolRig(int connections = 1) {
    prepare_transport(*this);
    sessions = std::make_unique<SessionFactory>(run.shared, StaticRequest{});
    pool.prepare(engine, connections, net::resolve("127.0.0.1", 1)->front(), *sessions, nullptr, *this);
    clock.refresh();
  }
  // LinkEvents.
  void established(Connection& c) override { pool.established(c); }
  void retry_later(Connection& c) override { pool.retry_later(c); }
  void broke(Connection& c, ErrorField) override { pool.reopen(c); }
  void reopen(Connection& c) override { pool.reopen(c); }
  void peer_closed(Connection& c) override { pool.reopen(c); }
  void ready(Connection&) override {}
  // PoolEvents.
  bool wants_connection(Connection&) override { return wanted; }
  void opened(Connection&) override { ++opened_count; }
  void closing(Connection& c) override {
    ++closing_count;
    if (on_closing) on_closing(c);
  }
};

// An open connection of `slots` slots over a FakeSession, reporting to `exchange`.
inline std::unique_ptr<Connection> open_connection(Exchange* exchange, std::uint32_t slots = 1) {
  auto c = std::make_unique<Connection>(exchange, slots);
  auto session = std::make_unique<FakeSession>();
  session->capacity_left = slots;
  c->session = std::move(session);
  c->state = Connection::State::kOpen;
  return c;
}

inline FakeSession& session_of(Connection& c) { return static_cast<FakeSession&>(*c.session); }

// A scenario's other origin at `url` (a test's own: the URL must parse).
inline scenario::Origin origin_at(const char* url) {
  scenario::Origin o;
  o.target = *cli::parse_url(url);
  o.prefix = url;
  return o;
}

}  // namespace pacer::engine::testing
