// See lua_watch.h.
#include "watchdog/lua_watch.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace pacer::watchdog {

std::string StuckWorker::message() const {
  return fmt::format("worker {} has been inside {} for {:.1f}s (Lua code that never yields or returns: LuaJIT "
                     "cannot interrupt it); the run ended without it",
                     worker, what, static_cast<double>(in_call_ns) / 1e9);
}

StuckWatch::StuckWatch(std::size_t workers, TimeNs grace_ns) : tracks_(workers), grace_ns_(grace_ns) {}

std::optional<StuckWorker> StuckWatch::poll(std::span<const LuaBeat* const> beats, std::span<const bool> done,
                                            TimeNs now_ns, std::optional<TimeNs> should_end_ns) {
  std::optional<StuckWorker> stuck;
  const bool over = should_end_ns && now_ns - *should_end_ns >= grace_ns_;
  for (std::size_t i = 0; i < beats.size() && i < tracks_.size(); ++i) {
    if (beats[i] == nullptr || (i < done.size() && done[i])) continue;
    const LuaBeat::Seen seen = beats[i]->seen();
    Track& t = tracks_[i];
    if (!seen.in_lua) {
      t.in_lua = false;
      continue;
    }
    if (!t.in_lua || seen.calls != t.calls) {  // a new call since the last poll
      t = Track{seen.calls, true, now_ns};
      continue;
    }
    const TimeNs in_call = now_ns - t.since_ns;
    if (!over || in_call < grace_ns_ || (stuck && stuck->in_call_ns >= in_call)) continue;
    stuck = StuckWorker{static_cast<int>(i), seen.what != nullptr ? seen.what : "Lua code", in_call};
  }
  return stuck;
}

void exit_leaving_stuck_threads(int code) {
  std::fflush(nullptr);
  ::_exit(code);
}

}  // namespace pacer::watchdog
