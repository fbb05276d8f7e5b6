#include "ui/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace pacer::ui {

namespace {

// Alternate screen on, cursor hidden, screen cleared.
constexpr std::string_view kEnter = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J";
// Colours reset, cursor shown, alternate screen off (the shell's screen returns).
constexpr std::string_view kLeave = "\x1b[0m\x1b[?25h\x1b[?1049l";
// Before kLeave from a signal handler, which may have interrupted a frame's write
// in the middle of an escape sequence or of a UTF-8 character: CAN, which ends
// either (a terminal that swallowed kLeave's first bytes as the rest of the
// broken sequence would stay in the alternate screen).
constexpr std::string_view kCancel = "\x18";

// Signal handlers can only reach globals: the fd of the active LiveScreen (>= 0);
// while its restore() is giving the terminal back, kLeaving - fd (the sequence may
// not be written yet, so a handler that exits must still write it); -1 if none.
std::atomic<int> g_live{-1};
constexpr int kLeaving = -2;

int live_fd(int state) { return state >= 0 ? state : state <= kLeaving ? kLeaving - state : -1; }

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the terminal is gone: nothing left to restore
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void on_suspend(int sig);

void leave_from_signal(int fd) {
  write_all(fd, kCancel);
  write_all(fd, kLeave);
}

void install(int sig, void (*handler)(int), int flags, struct sigaction* previous) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = flags;
  sigaction(sig, &sa, previous);
}

// Ctrl-Z: give the terminal back, stop, and take it again on `fg` (the next
// frame redraws everything).
void on_suspend(int sig) {
  const int saved_errno = errno;
  const int fd = live_fd(g_live.load());
  if (fd >= 0) leave_from_signal(fd);
  install(sig, SIG_DFL, 0, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  raise(sig);  // stops here until SIGCONT
  install(sig, &on_suspend, SA_RESTART, nullptr);
  if (fd >= 0 && g_live.load() >= 0) write_all(fd, kEnter);  // not if restore() was under way
  errno = saved_errno;
}

// A crash or SIGQUIT: restore, then let the default action (SA_RESETHAND) happen.
void on_fatal(int sig) {
  restore_terminal_from_signal();
  raise(sig);
}

}  // namespace

TerminalSize terminal_size(int fd) {
  TerminalSize out;
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0) {
    if (ws.ws_col > 0) out.columns = ws.ws_col;
    if (ws.ws_row > 0) out.rows = ws.ws_row;
  }
  return out;
}

void restore_terminal_from_signal() {
  const int fd = live_fd(g_live.exchange(-1));
  if (fd >= 0) leave_from_signal(fd);
}

LiveScreen::LiveScreen(int fd) : fd_(fd) {
  g_live.store(fd);
  for (std::size_t i = 0; i < kHandled.size(); ++i) {
    const bool suspend = kHandled[i] == SIGTSTP;
    install(kHandled[i], suspend ? &on_suspend : &on_fatal,
            suspend ? SA_RESTART : static_cast<int>(SA_RESETHAND | SA_NODEFER), &previous_[i]);
  }
  write_all(fd_, kEnter);
  active_ = true;
}

LiveScreen::~LiveScreen() { restore(); }

void LiveScreen::draw(const std::string& frame) {
  if (!active_) return;
  const int rows = terminal_size(fd_).rows;
  std::string out = "\x1b[H";
  std::size_t begin = 0;
  for (int row = 0; row < rows && begin < frame.size(); ++row) {
    std::size_t end = frame.find('\n', begin);
    if (end == std::string::npos) end = frame.size();
    if (row > 0) out += "\r\n";
    out.append(frame, begin, end - begin);
    out += "\x1b[K";  // clear what a longer previous line left
    begin = end + 1;
  }
  out += "\x1b[J";  // and every row below the frame
  write_all(fd_, out);
}

void LiveScreen::restore() {
  if (!active_) return;
  active_ = false;
  // Until the sequence is written, a handler that exits (even one interrupting this
  // write) writes it as well: written twice, the terminal ends the same; skipped,
  // it stays in the alternate screen. A handler that came first has written it.
  if (g_live.exchange(kLeaving - fd_) >= 0) write_all(fd_, kLeave);
  g_live.store(-1);
  for (std::size_t i = 0; i < kHandled.size(); ++i) sigaction(kHandled[i], &previous_[i], nullptr);
}

}  // namespace pacer::ui
