// Kernel receive timestamps. See arrival_stamp.h.
#include "server/arrival_stamp.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <cerrno>
#include <ctime>
#include <cstring>

namespace pacer::server {

namespace {

TimeNs to_ns(const timespec& t) { return static_cast<TimeNs>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

TimeNs realtime_to_monotonic(TimeNs realtime_ns) {
  timespec real{};
  timespec mono{};
  ::clock_gettime(CLOCK_REALTIME, &real);
  ::clock_gettime(CLOCK_MONOTONIC, &mono);
  return realtime_ns - (to_ns(real) - to_ns(mono));
}

}  // namespace

bool enable_receive_stamps(int fd) {
  const int one = 1;
  return ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
}

StampedRead read_stamped(int fd, char* buffer, std::size_t bytes) {
  iovec io{buffer, bytes};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  StampedRead result;
  ssize_t got = 0;
  do {
    got = ::recvmsg(fd, &message, 0);
  } while (got < 0 && errno == EINTR);
  if (got == 0) result.io = net::IoResult{0, net::IoStatus::kClosed, 0};
  if (got < 0) {
    const bool would_block = errno == EAGAIN || errno == EWOULDBLOCK;
    result.io = net::IoResult{0, would_block ? net::IoStatus::kWantRead : net::IoStatus::kError, would_block ? 0 : errno};
  }
  if (got <= 0) return result;
  result.io = net::IoResult{static_cast<std::size_t>(got), net::IoStatus::kOk, 0};
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      timespec stamp{};
      std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
      if (stamp.tv_sec != 0 || stamp.tv_nsec != 0) result.kernel_arrival_ns = realtime_to_monotonic(to_ns(stamp));
      break;
    }
  }
  return result;
}

}  // namespace pacer::server
