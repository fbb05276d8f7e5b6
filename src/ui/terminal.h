// The live view's hold on the terminal: LiveScreen switches stdout to the
// alternate screen and hides the cursor, draws frames, and gives the terminal
// back as it found it when destroyed, on an error path (RAII), and on signals:
// Ctrl-Z (restored while suspended, taken again on resume), fatal signals
// (restored, then the default action), and the second SIGINT/SIGTERM, whose
// handler exits at once and calls restore_terminal_from_signal() first.
// One LiveScreen at a time; main thread (the signal paths run in handlers).
#pragma once

#include <array>
#include <csignal>
#include <string>

namespace pacer::ui {

struct TerminalSize {
  int columns = 80;
  int rows = 24;
};

// The size of the terminal on fd (TIOCGWINSZ), or 80x24 when it is not one or
// reports zero.
TerminalSize terminal_size(int fd);

class LiveScreen {
 public:
  explicit LiveScreen(int fd);
  ~LiveScreen();
  LiveScreen(const LiveScreen&) = delete;
  LiveScreen& operator=(const LiveScreen&) = delete;

  // Replaces the screen's contents with `frame` ("\n"-separated lines, already
  // clipped to the width), dropping lines below the last row so nothing scrolls.
  void draw(const std::string& frame);
  // Shows the cursor and leaves the alternate screen; idempotent.
  void restore();

 private:
  static constexpr std::array<int, 7> kHandled = {SIGTSTP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  int fd_;
  bool active_ = false;
  std::array<struct sigaction, kHandled.size()> previous_{};
};

// Async-signal-safe: if a LiveScreen is active, or its restore() has not finished
// writing, writes the sequence that restores the terminal (for a handler that is
// about to _exit), so the terminal is back whenever the handler runs.
void restore_terminal_from_signal();

}  // namespace pacer::ui
