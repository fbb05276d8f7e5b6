// The kernel receive stamp: inherited from the listening socket, converted to the
// monotonic clock, and taken when the bytes arrived rather than when they are read.
#include "server/arrival_stamp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/unique_fd.h"

namespace pacer::server {
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

TEST(ArrivalStamp, AcceptedSocketsInheritStampsAndTheStampPrecedesTheRead) {
  TcpPair pair = connect_pair(true);
  const TimeNs before_send = monotonic_now_ns();
  ASSERT_EQ(::write(pair.client.get(), "GET", 3), 3);
  // The data waits in the socket while time passes; the stamp must not move with the read.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  char buffer[16];
  TimeNs arrival_ns = 0;
  ASSERT_EQ(read_stamped(pair.accepted.get(), buffer, sizeof buffer, arrival_ns), 3);
  const TimeNs after_read = monotonic_now_ns();
  EXPECT_GE(arrival_ns + 1'000'000, before_send);  // 1 ms of slack for the clock conversion
  EXPECT_LT(arrival_ns, after_read - 10'000'000);   // well before the read, not at it
}

TEST(ArrivalStamp, WithoutStampsTheArrivalIsTheTimeOfTheRead) {
  TcpPair pair = connect_pair(false);
  ASSERT_EQ(::write(pair.client.get(), "GET", 3), 3);
  const TimeNs before_read = monotonic_now_ns();
  char buffer[16];
  TimeNs arrival_ns = 0;
  ASSERT_EQ(read_stamped(pair.accepted.get(), buffer, sizeof buffer, arrival_ns), 3);
  EXPECT_GE(arrival_ns, before_read);
  EXPECT_LE(arrival_ns, monotonic_now_ns());
}

}  // namespace
}  // namespace pacer::server
