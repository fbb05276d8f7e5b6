// LiveScreen's hold on the terminal and its signal paths. The terminal is a pipe;
// the signal path runs in a forked child, because its handler exits.
#include "ui/terminal.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace pacer::ui {
namespace {

constexpr std::string_view kLeave = "\x1b[0m\x1b[?25h\x1b[?1049l";

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

// Whether process pid is asleep inside write(2): /proc/PID/syscall starts with the
// number of the system call it is blocked in.
bool blocked_in_write(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/syscall");
  long number = -1;
  return static_cast<bool>(in >> number) && number == SYS_write;
}

// A field of /proc/PID/status ("State", "SigPnd", ...), "" once the process is gone.
std::string status_field(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + ":", 0) == 0) return line.substr(name.size() + 1);
  }
  return "";
}

bool signal_pending(pid_t pid, int sig) {
  const unsigned long long bit = 1ULL << (sig - 1);
  return (std::stoull("0" + status_field(pid, "SigPnd"), nullptr, 16) & bit) != 0 ||
         (std::stoull("0" + status_field(pid, "ShdPnd"), nullptr, 16) & bit) != 0;
}

// Polls `done` (every millisecond, for at most 30 s); returns its last value.
template <typename F>
bool wait_until(F done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

// Kills and reaps a forked child that a failed assertion left behind.
struct Reaper {
  pid_t pid;
  ~Reaper() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

void exit_after_restoring(int) {
  restore_terminal_from_signal();
  _exit(42);
}

// Forks a child holding a LiveScreen on the pipe's write end, in which SIGUSR1
// restores the terminal and exits 42 as a second Ctrl-C does, and runs
// body(screen, fd) there (the child exits 0 if it returns). The parent keeps the
// read end; returns the child's pid (-1 if fork failed).
template <typename Body>
pid_t fork_live_screen(int fds[2], Body body) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    LiveScreen screen(fds[1]);
    struct sigaction sa {};
    sa.sa_handler = &exit_after_restoring;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, nullptr);
    body(screen, fds[1]);
    _exit(0);  // only if the signal never came
  }
  ::close(fds[1]);
  return child;
}

// Reaps the reaper's child: its exit code, or -1 if it did not exit normally.
int exit_code_of(Reaper& reaper) {
  int status = 0;
  if (::waitpid(reaper.pid, &status, 0) != reaper.pid) return -1;
  reaper.pid = 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(LiveScreen, RestoreWritesTheSequenceThatGivesTheTerminalBack) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    LiveScreen screen(fds[1]);
    screen.draw("hello");
  }
  ::close(fds[1]);
  const std::string out = read_all(fds[0]);
  ::close(fds[0]);
  EXPECT_EQ(out.find("\x1b[?1049h"), 0u) << out;
  EXPECT_NE(out.find("hello"), std::string::npos) << out;
  EXPECT_EQ(out.size() - out.rfind(kLeave), kLeave.size()) << "ends with the restoring sequence";
}

// The second Ctrl-C exits from its handler after restore_terminal_from_signal().
// If it lands while the main thread's restore() is still writing (under TSan, a
// handler is deferred to the next libc call, which is that very write), the
// terminal must still be given back: the handler may not assume restore() has.
TEST(LiveScreen, AnExitingHandlerInterruptingRestoreStillGivesTheTerminalBack) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = fork_live_screen(fds, [](LiveScreen& screen, int fd) {
    // Fill the pipe, so that restore() blocks in its write until the parent reads.
    ::fcntl(fd, F_SETFL, O_NONBLOCK);
    const std::string filler(4096, 'x');
    for (std::size_t size : {filler.size(), std::size_t{1}}) {
      while (::write(fd, filler.data(), size) > 0) {
      }
    }
    ::fcntl(fd, F_SETFL, 0);
    screen.restore();
  });
  ASSERT_GE(child, 0);
  Reaper reaper{child};
  ASSERT_TRUE(wait_until([&] { return blocked_in_write(child); })) << "restore() never blocked";
  ::kill(child, SIGUSR1);
  // Read nothing until the handler has taken the signal and either exited or
  // blocked in a write of its own: reading earlier would let restore()'s write
  // complete before the handler runs, and the test would prove nothing.
  ASSERT_TRUE(wait_until([&] {
    return !signal_pending(child, SIGUSR1) &&
           (status_field(child, "State").find('Z') != std::string::npos || blocked_in_write(child));
  }));
  const std::string out = read_all(fds[0]);
  ::close(fds[0]);
  EXPECT_EQ(exit_code_of(reaper), 42);
  EXPECT_NE(out.find(kLeave), std::string::npos) << "the terminal was left in the alternate screen";
}

// A signal can interrupt a frame's write anywhere, in an escape sequence or a
// UTF-8 character; a terminal reading the restoring sequence as the rest of it
// would stay in the alternate screen (seen under TSan with the UTF-8 glyphs). The
// handler's restore cancels whatever sequence was open first (CAN).
TEST(LiveScreen, AHandlerRestoringAfterAFrameCutShortCancelsItsSequenceFirst) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = fork_live_screen(fds, [](LiveScreen&, int fd) {
    const std::string_view cut = "\x1b[38;5;19\xe2\x96";  // a colour and a block glyph, both unfinished
    if (::write(fd, cut.data(), cut.size()) != static_cast<ssize_t>(cut.size())) _exit(1);
    ::raise(SIGUSR1);
  });
  ASSERT_GE(child, 0);
  Reaper reaper{child};
  const std::string out = read_all(fds[0]);
  ::close(fds[0]);
  EXPECT_EQ(exit_code_of(reaper), 42);
  const std::size_t leave = out.rfind(kLeave);
  ASSERT_NE(leave, std::string::npos) << "the terminal was left in the alternate screen";
  EXPECT_EQ(out.size() - leave, kLeave.size());
  ASSERT_GT(leave, 0u);
  EXPECT_EQ(out[leave - 1], '\x18') << "the cut sequence was not cancelled before the restoring one";
}

}  // namespace
}  // namespace pacer::ui
