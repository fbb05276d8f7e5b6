// Threads that leave SIGINT and SIGTERM to the thread that starts them: the main
// thread, whose handlers stop the run (app/signals.h) and give the live view's
// terminal back. A handler running on another thread while the main thread
// writes a frame would restore the terminal in the middle of that frame, and the
// rest of the frame would land on the shell's screen. The new thread inherits
// the blocked mask; the caller's own mask is as it was when this returns.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <thread>
#include <utility>

namespace pacer {

template <typename F>
std::thread thread_leaving_stop_signals(F&& body) {
  struct Restore {
    sigset_t previous;
    ~Restore() { pthread_sigmask(SIG_SETMASK, &previous, nullptr); }
  } restore{};
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &restore.previous);
  return std::thread(std::forward<F>(body));
}

}  // namespace pacer
