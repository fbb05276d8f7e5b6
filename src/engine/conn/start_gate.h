// The closed model's start (issue 31): the pool connects every connection at
// once, and none sends until each one's first connect has finished (opened or
// failed), or kMaxHoldNs has passed; then they all start together.
//
// Why: a server with a listen backlog smaller than the burst (nginx: 511) drops
// the SYNs that find its accept queue full, and Linux resends them only after
// 1 s. Once requests flow, nginx accepts about one connection per pass over its
// ready connections (tens a second with thousands of them), so a connection
// whose SYN came back after the load began waited in that queue past
// --timeout. Held, the server has nothing to serve but accepts until every
// connection is in. The hold ends by 1.5 s: the kernel's first SYN resend (1 s)
// fits, and a server that drops a SYN twice does not hold the run.
//
// While it holds, a TCP connect whose SYN stays unanswered far longer than the
// start-up probe's connect took alone (4 times, 20 ms at least) is dialled again
// from a fresh socket, and again after twice as long each time: a SYN the server
// dropped is so resent while the server has nothing else to do, one connect at
// a time, instead of by the kernel 1 s later in one batch (whose handshakes can
// overflow the queue again, leaving connections the client thinks open and the
// server never accepted). The connect's time and its --timeout still count
// from the first dial. (pacer's own connect times are no yardstick: during
// the burst it notices an answer only after its last connect call.)
//
// The run's workers start together too (StartBarrier): a worker whose own
// connects have finished holds on until every worker's have, or its deadline.
// Otherwise the first worker's load keeps the server from accepting the
// connections the others are still opening (with -t4 at -c10000 against nginx:
// hundreds of timeouts and connect failures).
//
// A connection that closes while held leaves the gate; one that opens after the
// hold starts at once. A StartGate is one worker's; StartBarrier is shared.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "engine/conn/connection.h"
#include "engine/loop/clock.h"

namespace pacer::engine {

// The run's workers, each until its first connects have finished: shared by
// every worker's gate (SharedRun::start_barrier). Each worker arrives once.
class StartBarrier {
 public:
  explicit StartBarrier(int workers) : waiting_(workers) {}
  void arrive() { waiting_.fetch_sub(1, std::memory_order_acq_rel); }
  bool all_arrived() const { return waiting_.load(std::memory_order_acquire) <= 0; }

 private:
  std::atomic<int> waiting_;
};

class StartGate {
 public:
  static constexpr TimeNs kMaxHoldNs = 1500 * kNsPerMs;
  static constexpr TimeNs kMinStallNs = 20 * kNsPerMs;
  static constexpr int kStallFactor = 4;  // a stall: this many times the probe's connect
  static constexpr TimeNs kBarrierPollNs = kNsPerMs;  // how often a worker done first looks at the others

  // The hold begins for `connections` first connects, and ends by now_ns +
  // kMaxHoldNs; probe_connect_ns: how long the start-up probe's connect took,
  // alone (-1: no probe, no connect is judged stalled); barrier: the other
  // workers' gates (null: this worker alone), arrived at once this gate's own
  // connects have finished (at once when it holds none), or when it lets go.
  void arm(std::size_t connections, TimeNs now_ns, TimeNs probe_connect_ns, StartBarrier* barrier = nullptr) {
    barrier_ = barrier;
    stall_ns_ = probe_connect_ns < 0 ? kNeverNs : std::max(kMinStallNs, kStallFactor * probe_connect_ns);
    first_done_.assign(connections, false);
    is_held_.assign(connections, false);
    dialled_ns_.assign(connections, now_ns);
    redials_.assign(connections, 0);
    pending_ = connections;
    deadline_ns_ = now_ns + kMaxHoldNs;
    holding_ = connections > 0;
    if (!holding_) arrive();  // nothing to finish
  }
  bool holding() const { return holding_; }
  TimeNs deadline_ns() const { return holding_ ? deadline_ns_ : kNeverNs; }
  // c is open: true when the gate keeps it until the hold ends.
  bool hold(Connection& c) {
    if (!holding_) return false;
    held_.push_back(&c);
    if (valid(c.index)) is_held_[static_cast<std::size_t>(c.index)] = true;
    return true;
  }
  // Is c kept (open, but sending nothing yet)?
  bool holds(const Connection& c) const {
    return holding_ && (valid(c.index) ? is_held_[static_cast<std::size_t>(c.index)]
                                       : std::find(held_.begin(), held_.end(), &c) != held_.end());
  }
  // Connection `index` finished a connect (opened or failed): its first counts.
  void connect_finished(int index) {
    const auto i = static_cast<std::size_t>(index);
    if (!holding_ || !valid(index) || first_done_[i]) return;
    first_done_[i] = true;
    if (--pending_ == 0) arrive();
  }
  // c is closing: if held, it is no longer.
  void forget(const Connection& c) {
    if (!holds(c)) return;
    std::erase(held_, &c);
    if (valid(c.index)) is_held_[static_cast<std::size_t>(c.index)] = false;
  }
  // How long a connect goes unanswered before it may have stalled (kNeverNs: not judged).
  TimeNs stall_ns() const { return holding_ ? stall_ns_ : kNeverNs; }
  // Connection `index`, connecting since it was last dialled: a stall long enough
  // to dial it again? (Doubling with each redial.)
  bool redial_due(int index, TimeNs now_ns) const {
    if (stall_ns() == kNeverNs || !valid(index)) return false;
    const auto i = static_cast<std::size_t>(index);
    if (dialled_ns_[i] == kAnswered) return false;
    return now_ns - dialled_ns_[i] >= (stall_ns_ << std::min<int>(redials_[i], 6));
  }
  // Connection `index`'s SYN was answered (its connect completes at the engine's
  // report, however long the worker takes to reach it): never asked again, as an
  // answered SYN cannot become a stalled one. Without it, every turn of a -c10000
  // start asked the kernel again about each such connection (200,000 TCP_INFO
  // reads in 3 s); asking again once a stall later still made 40,000 when the
  // worker took longer than a stall to read the reports (issue 46).
  void answered(int index) {
    if (valid(index)) dialled_ns_[static_cast<std::size_t>(index)] = kAnswered;
  }
  // Connection `index` was dialled again at now_ns.
  void redialled(int index, TimeNs now_ns) {
    if (!valid(index)) return;
    const auto i = static_cast<std::size_t>(index);
    dialled_ns_[i] = now_ns;
    ++redials_[i];
  }
  // The hold is over (every first connect of every worker finished, or its deadline passed).
  bool due(TimeNs now_ns) const {
    return holding_ && ((pending_ == 0 && others_arrived()) || now_ns >= deadline_ns_);
  }
  // This worker's connects have finished, another worker's not yet: when to look again.
  TimeNs barrier_poll_ns(TimeNs now_ns) const {
    return holding_ && pending_ == 0 && !others_arrived() ? std::min(now_ns + kBarrierPollNs, deadline_ns_) : kNeverNs;
  }
  // The hold ends: the connections it kept, in the order they opened.
  std::vector<Connection*> release() {
    if (pending_ > 0) arrive();  // its deadline came first: the others need not wait for it
    holding_ = false;
    first_done_ = {};
    is_held_ = {};
    dialled_ns_ = {};
    redials_ = {};
    std::vector<Connection*> kept;
    kept.swap(held_);
    return kept;
  }

 private:
  bool valid(int index) const { return index >= 0 && static_cast<std::size_t>(index) < first_done_.size(); }
  bool others_arrived() const { return barrier_ == nullptr || barrier_->all_arrived(); }
  // Once per arm: with no connections, when pending_ reaches 0, or at release() before that.
  void arrive() {
    if (barrier_ != nullptr) barrier_->arrive();
  }

  std::vector<bool> first_done_;  // by connection index
  std::vector<bool> is_held_;     // by index: on held_
  static constexpr TimeNs kAnswered = kNeverNs;  // in dialled_ns_: answered() (not judged again)
  std::vector<TimeNs> dialled_ns_;  // by index: the last dial, or kAnswered
  std::vector<std::uint8_t> redials_;  // by index
  TimeNs stall_ns_ = kNeverNs;
  std::vector<Connection*> held_;
  std::size_t pending_ = 0;  // first connects not yet finished
  TimeNs deadline_ns_ = 0;
  bool holding_ = false;
  StartBarrier* barrier_ = nullptr;  // shared with the other workers' gates; null: none
};

}  // namespace pacer::engine
