#include "app/signals.h"

#include <unistd.h>

#include <csignal>

#include "ui/terminal.h"

namespace pacer::app {

namespace {

// Signal handlers can only reach globals; these two are the only ones.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) {  // second signal: now, but not in the alternate screen
    ui::restore_terminal_from_signal();
    _exit(128 + sig);
  }
  g_stop.store(true);
}

}  // namespace

StopSignals::StopSignals() {
  g_stop.store(false);
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = &on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

StopSignals::~StopSignals() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

void StopSignals::request_stop() {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, SIGINT);
  g_stop.store(true);
}

void StopSignals::rearm() {
  g_signal.store(0);
  g_stop.store(false);
}

const std::atomic<bool>& StopSignals::flag() const { return g_stop; }
int StopSignals::received() const { return g_signal.load(); }

}  // namespace pacer::app
