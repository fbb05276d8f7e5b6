// The h2c start-up probe: see h2c_probe.h.
#include "net/h2c_probe.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace pacer::net {

namespace {

// RFC 9113 3.4: the client preface, then a SETTINGS frame (here empty).
constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";
constexpr std::size_t kPrefaceBytes = sizeof(kPreface) - 1;
constexpr std::string_view kHttp1 = "HTTP/1.";

// Waits for `events` on fd until deadline_ns; false on a timeout or an error.
bool wait_for(int fd, short events, TimeNs deadline_ns) {
  while (true) {
    const TimeNs left = deadline_ns - monotonic_now_ns();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<TimeNs>(1, left / kNsPerMs)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

}  // namespace

bool answers_h2_preface_in_http1(int fd, TimeNs timeout_ns) {
  const TimeNs deadline = monotonic_now_ns() + timeout_ns;
  std::size_t sent = 0;
  while (sent < kPrefaceBytes) {
    const ssize_t n = ::send(fd, kPreface + sent, kPrefaceBytes - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(fd, POLLOUT, deadline)) return false;
    } else {
      return false;
    }
  }
  char first[16];
  std::size_t got = 0;
  while (got < kHttp1.size()) {
    const ssize_t n = ::recv(fd, first + got, sizeof(first) - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
      // Stop as soon as the bytes so far cannot begin "HTTP/1.".
      if (std::memcmp(first, kHttp1.data(), std::min(got, kHttp1.size())) != 0) return false;
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(fd, POLLIN, deadline)) return false;
    } else {
      return false;  // closed, or an error
    }
  }
  return true;
}

}  // namespace pacer::net
