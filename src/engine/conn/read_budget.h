// Read budgets: a server can send faster than pacer parses (an endless body in
// tiny chunks), and reading until the socket drains would never return to the
// loop, whose timers hold --timeout and -d. So a connection reads at most
// kBytesPerConnection per wake-up, and once a wake-up has spent kSliceNs reading
// (the clock is read only after a read that was not the last) no connection reads
// more in it. The rest waits on the unread list (an engine reports new bytes once,
// not again while they wait); the loop's next wait does not block while the list
// is not empty, and the next wake-up serves it first. One worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/clock.h"
#include "engine/conn/connection.h"
#include "io/engine.h"

namespace pacer::engine {

class ReadBudget {
 public:
  static constexpr std::size_t kReadBufferBytes = 64 * 1024;  // the budgets' unit
  static constexpr std::size_t kBytesPerConnection = 4 * kReadBufferBytes;
  static constexpr TimeNs kSliceNs = 1'000'000;

  // A wake-up began at now_ns: a fresh slice.
  void begin(TimeNs now_ns) {
    ++wake_count_;
    wake_ns_ = now_ns;
    spent_ = false;
  }
  bool spent() const { return spent_; }
  // After a read that was not the last: is this wake-up's reading time used up?
  void check_slice() {
    if (monotonic_now_ns() - wake_ns_ >= kSliceNs) spent_ = true;
  }
  // Whether c already had its share of this wake-up (its new events are kept for
  // later); otherwise takes c off the list and returns the events it had left.
  bool had_its_share(Connection& c, std::uint32_t& events) {
    if (unread_.contains(c) && c.unread.at_wake == wake_count_) {
      c.unread.events |= events;
      return true;
    }
    unread_.remove(c);
    events |= std::exchange(c.unread.events, 0);
    return false;
  }
  // c has more to read than its share: it waits with the events it has not acted on.
  void defer(Connection& c, std::uint32_t events) {
    c.unread.events = events & (io::kReadable | io::kPeerClosing);
    c.unread.at_wake = wake_count_;
    unread_.push_back(c);
  }
  // c's session has not started (the start gate holds it): its read events wait
  // for it, off the list (kept() tells, and its first read takes them).
  static void keep(Connection& c, std::uint32_t events) { c.unread.events |= events & (io::kReadable | io::kPeerClosing); }
  static bool kept(const Connection& c) { return c.unread.events != 0; }
  // c closed: it has nothing left to read.
  void forget(Connection& c) {
    unread_.remove(c);
    c.unread.events = 0;
  }
  bool empty() const { return unread_.empty(); }
  std::size_t waiting() const { return unread_.size(); }
  Connection* oldest() const { return unread_.front(); }

 private:
  UnreadList unread_;
  std::uint64_t wake_count_ = 0;
  TimeNs wake_ns_ = 0;
  bool spent_ = false;
};

}  // namespace pacer::engine
