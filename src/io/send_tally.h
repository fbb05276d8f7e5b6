// How many completions the io_uring engine's wait waits for (io/uring_engine.h).
// A loopback send completes inside the io_uring_enter that submits it, so a wait
// for one completion returns at once with nothing but the sends' own, and a second
// enter sleeps until a response: two system calls a wake-up where one does. Waiting
// for one completion more than the sends queued since the last wait makes the one
// enter submit, sleep and come back with the response.
//
// Only when no completion of those sends is wanted at once:
//  - every one of them is small (kInlineBytes): such a send leaves within the
//    enter unless the server stopped reading, and with MSG_WAITALL (the engine's
//    sends) none ends part-way and wants the rest written;
//  - no write waits behind a send in flight (write() met kSending): that send's
//    completion is what lets the waiting bytes go.
// Otherwise the wait is for one completion, as before. A wait that waits for
// more than come returns at its timeout (the loop's next due time), so a send
// that blocks after all delays nothing past it. One worker thread; no clock.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace pacer::io {

class SendTally {
 public:
  static constexpr std::size_t kInlineBytes = 16 * 1024;
  // The most a wait waits for. The kernel runs up to min_complete deferred task
  // work items (at least 20) before it looks at the count, and each receive among
  // them takes a provided buffer: at -c10000 a wait for 255 took every buffer at
  // once, and the receives that found none, armed again, failed again (5 million
  // ENOBUFS completions in 4 s, half the requests). With more sends than this,
  // their own completions end the wait, as with a wait for one.
  static constexpr std::uint32_t kMostWaitedFor = 16;

  // A send of `bytes` was queued (it leaves with the next enter).
  void queued(std::size_t bytes) {
    ++sends_;
    if (bytes > kInlineBytes) large_ = true;
  }
  // A channel's write waits for its send in flight; done: that send completed
  // (or its channel closed). Counted once per channel by the engine's flag.
  void write_waits() { ++waiting_; }
  void write_done() {
    if (waiting_ > 0) --waiting_;
  }
  // The wait's min_complete; the queued sends then leave with it (reset()).
  std::uint32_t wait_for() const { return waiting_ > 0 || large_ ? 1 : std::min(1 + sends_, kMostWaitedFor); }
  void reset() {
    sends_ = 0;
    large_ = false;
  }

 private:
  std::uint32_t sends_ = 0;    // queued since the last wait
  bool large_ = false;         // one of them is over kInlineBytes
  std::uint32_t waiting_ = 0;  // channels whose write waits behind their send
};

}  // namespace pacer::io
