// SIGINT/SIGTERM during a run: the first one sets a flag that the workers poll
// (they stop, and the partial report is still printed); a second one exits at
// once, after giving the terminal back if the live view holds it. Installed for
// the lifetime of a StopSignals object (one at a time).
#pragma once

#include <atomic>

namespace pacer::app {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  const std::atomic<bool>& flag() const;
  int received() const;  // the first signal number, 0 if none

  // The web view's Stop (POST /stop): the run ends exactly as on a first
  // Ctrl-C (received() is then SIGINT); unlike a signal, a second request does
  // not exit at once. Any thread.
  static void request_stop();
  // After the run (the web view's --web-linger): forgets the stop so far, so the
  // next Ctrl-C or Stop ends the linger as a first one would.
  void rearm();
};

}  // namespace pacer::app
