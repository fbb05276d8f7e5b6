// The kernel receive stamp: inherited from the listening socket, converted to the
// monotonic clock, and taken when the bytes arrived rather than when they are read.
#include "net/receive_stamp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/unique_fd.h"

namespace pacer::net {
namespace {

struct TcpPair {
  UniqueFd client;
  UniqueFd accepted;
};

TcpPair connect_pair(bool stamp_listener) {
  UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(::listen(listener.get(), 4), 0);
  if (stamp_listener) {
    EXPECT_TRUE(enable_receive_stamps(listener.get()));
  }
  socklen_t length = sizeof address;
  ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length);
  TcpPair pair;
  pair.client = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_EQ(::connect(pair.client.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  pair.accepted = UniqueFd(::accept(listener.get(), nullptr, nullptr));
  return pair;
}

// The kernel turns stamping on by deferred work: echo a byte until one comes back
// stamped (bounded), so the measured write below is stamped for sure.
bool wait_until_stamped(TcpPair& pair) {
  for (int attempt = 0; attempt < 2000; ++attempt) {
    char byte = 'x';
    if (::write(pair.client.get(), &byte, 1) != 1) return false;
    const StampedRead r = read_stamped(pair.accepted.get(), &byte, 1);
    if (r.io.bytes != 1) return false;
    if (r.kernel_arrival_ns != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(ReceiveStamp, AcceptedSocketsInheritStampsAndTheStampPrecedesTheRead) {
  TcpPair pair = connect_pair(true);
  ASSERT_TRUE(wait_until_stamped(pair));
  const TimeNs before_send = monotonic_now_ns();
  ASSERT_EQ(::write(pair.client.get(), "GET", 3), 3);
  // The data waits in the socket while time passes; the stamp must not move with the read.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  char buffer[16];
  const StampedRead r = read_stamped(pair.accepted.get(), buffer, sizeof buffer);
  const TimeNs after_read = monotonic_now_ns();
  ASSERT_EQ(r.io.bytes, 3u);
  const TimeNs arrival_ns = r.kernel_arrival_ns;
  EXPECT_GE(arrival_ns + 1'000'000, before_send);  // 1 ms of slack for the clock conversion
  EXPECT_LT(arrival_ns, after_read - 10'000'000);   // well before the read, not at it
}

TEST(ReceiveStamp, ASocketThatDidNotAskGetsNoStamp) {
  TcpPair stamped = connect_pair(true);  // stamping on in the kernel, but not for the next pair
  ASSERT_TRUE(wait_until_stamped(stamped));
  TcpPair pair = connect_pair(false);
  ASSERT_EQ(::write(pair.client.get(), "GET", 3), 3);
  char buffer[16];
  const StampedRead r = read_stamped(pair.accepted.get(), buffer, sizeof buffer);
  EXPECT_EQ(r.io.bytes, 3u);
  EXPECT_EQ(r.kernel_arrival_ns, 0);
}

}  // namespace
}  // namespace pacer::net
