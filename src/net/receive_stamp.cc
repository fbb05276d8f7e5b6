// Kernel receive timestamps. See receive_stamp.h.
#include "net/receive_stamp.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <algorithm>
#include <cerrno>
#include <ctime>
#include <cstring>

namespace pacer::net {

namespace {

TimeNs to_ns(const timespec& t) { return static_cast<TimeNs>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

// Never later than now: a wall-clock step between the stamp and this read must
// not put an arrival in the future.
TimeNs realtime_to_monotonic(TimeNs realtime_ns) {
  timespec real{};
  timespec mono{};
  ::clock_gettime(CLOCK_REALTIME, &real);
  ::clock_gettime(CLOCK_MONOTONIC, &mono);
  return std::min(realtime_ns - (to_ns(real) - to_ns(mono)), to_ns(mono));
}

}  // namespace

TimeNs message_stamp(const msghdr& message) {
  for (const cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr;
       c = CMSG_NXTHDR(const_cast<msghdr*>(&message), const_cast<cmsghdr*>(c))) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec kernel{};
    std::memcpy(&kernel, CMSG_DATA(c), sizeof kernel);
    return kernel.tv_sec == 0 && kernel.tv_nsec == 0 ? 0 : realtime_to_monotonic(to_ns(kernel));
  }
  return 0;
}

bool enable_receive_stamps(int fd) {
  const int one = 1;
  return ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
}

ssize_t recv_stamped(int fd, char* buffer, std::size_t bytes, TimeNs& stamp) {
  iovec io{buffer, bytes};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  stamp = 0;
  ssize_t got = 0;
  do {
    got = ::recvmsg(fd, &message, 0);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return got;
  stamp = message_stamp(message);
  return got;
}

StampedRead read_stamped(int fd, char* buffer, std::size_t bytes) {
  StampedRead result;
  const ssize_t got = recv_stamped(fd, buffer, bytes, result.kernel_arrival_ns);
  if (got > 0) {
    result.io = IoResult{static_cast<std::size_t>(got), IoStatus::kOk, 0};
  } else if (got == 0) {
    result.io = IoResult{0, IoStatus::kClosed, 0};
  } else {
    const bool would_block = errno == EAGAIN || errno == EWOULDBLOCK;
    result.io = IoResult{0, would_block ? IoStatus::kWantRead : IoStatus::kError, would_block ? 0 : errno};
  }
  return result;
}

}  // namespace pacer::net
