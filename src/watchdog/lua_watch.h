// Ending a run whose worker is stuck in Lua: a scenario task that never yields
// (`while true do end`), a -s script's request() or response() that never
// returns. LuaJIT runs compiled traces without calling hooks, so a stuck call
// cannot be interrupted from inside; the run ends without that worker instead:
// the controller stops waiting for it, reports what it last published (its
// interval snapshots), names the call, and the process exits without joining it
// (exit_leaving_stuck_threads).
//
// Two parts with one job each:
// - LuaBeat: one per worker thread, written only by it (two relaxed stores per
//   Lua call, no clock read, nothing allocated), read by the main thread.
// - StuckWatch: the main thread's verdict, from polls of every beat with its own
//   clock: a worker is stuck when it has been inside one Lua call for `grace`
//   and the run should have ended at least `grace` ago (-d's end, -n reached, a
//   SIGINT/SIGTERM). A run is then over at its end + grace, whatever Lua does.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.h"

namespace pacer::watchdog {

// How long after the run should have ended a worker may stay inside one Lua call.
constexpr TimeNs kDefaultGraceNs = kNsPerS;

class LuaBeat {
 public:
  // Worker thread, around every Lua call that runs user code. `what` names the
  // call ("task 'checkout'", "request()") and must outlive the run (a literal, a
  // task name the scenario keeps).
  void enter(const char* what) noexcept {
    what_.store(what, std::memory_order_relaxed);
    calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    in_lua_.store(true, std::memory_order_release);
  }
  void leave() noexcept { in_lua_.store(false, std::memory_order_release); }

  struct Seen {
    std::uint64_t calls = 0;  // calls entered so far
    bool in_lua = false;
    const char* what = nullptr;
  };
  // Main thread.
  Seen seen() const noexcept {
    Seen s;
    s.in_lua = in_lua_.load(std::memory_order_acquire);
    s.calls = calls_.load(std::memory_order_relaxed);
    s.what = what_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  std::atomic<std::uint64_t> calls_{0};
  std::atomic<bool> in_lua_{false};
  std::atomic<const char*> what_{nullptr};
};

// Marks one Lua call on a beat (null: none) for the scope.
class InLua {
 public:
  InLua(LuaBeat* beat, const char* what) noexcept : beat_(beat) {
    if (beat_ != nullptr) beat_->enter(what);
  }
  ~InLua() {
    if (beat_ != nullptr) beat_->leave();
  }
  InLua(const InLua&) = delete;
  InLua& operator=(const InLua&) = delete;

 private:
  LuaBeat* beat_;
};

struct StuckWorker {
  int worker = 0;        // index of the beat
  std::string what;      // the call, as entered
  TimeNs in_call_ns = 0; // how long it has been inside it (as seen by the polls)
  // "worker 1 has been inside the scenario's task 'spin' for 3.0s (it never
  // yields: LuaJIT cannot interrupt it); the run ended without it"
  std::string message() const;
};

// Main thread only.
class StuckWatch {
 public:
  explicit StuckWatch(std::size_t workers, TimeNs grace_ns = kDefaultGraceNs);

  // One poll at now_ns (the controller's clock). should_end_ns: when the run
  // should have ended (-d's end, the stop signal, -n reached), nullopt while it
  // should not. Returns the stuck worker (the one inside its call the longest)
  // once the verdict holds, else nullopt. Workers done with the run are skipped
  // (done[i]; may be empty).
  std::optional<StuckWorker> poll(std::span<const LuaBeat* const> beats, std::span<const bool> done, TimeNs now_ns,
                                  std::optional<TimeNs> should_end_ns);

 private:
  struct Track {
    std::uint64_t calls = 0;
    bool in_lua = false;
    TimeNs since_ns = 0;  // when this call was first seen
  };
  std::vector<Track> tracks_;
  TimeNs grace_ns_;
};

// After the report of a run with a stuck worker is written: flushes stdio and
// ends the process with `code` at once, without joining the stuck thread or
// running destructors it could race with (_exit).
[[noreturn]] void exit_leaving_stuck_threads(int code);

}  // namespace pacer::watchdog
