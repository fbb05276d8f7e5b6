// The kernel receive stamp: inherited from the listening socket, converted to the
// monotonic clock, and taken when the bytes arrived rather than when they are read.
#include "net/receive_stamp.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "../support/tls_files.h"
#include "core/clock.h"
#include "core/unique_fd.h"
#include "net/tls_stream.h"

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

TEST(ReceiveStamp, ATlsReadCarriesTheStampOfTheBytesItTookFromTheSocket) {
  testing::TlsFiles files;
  ASSERT_TRUE(files.ok);
  auto server_ctx = TlsContext::server(files.cert, files.key);
  ASSERT_TRUE(server_ctx.ok()) << server_ctx.error().message;
  TlsClientOptions options;
  options.verify_peer = false;
  auto client_ctx = TlsContext::client(options);
  ASSERT_TRUE(client_ctx.ok()) << client_ctx.error().message;

  TcpPair pair = connect_pair(true);
  ASSERT_TRUE(wait_until_stamped(pair));  // raw bytes, before TLS starts
  for (int fd : {pair.client.get(), pair.accepted.get()}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  TlsStream client;
  TlsStream server;
  ASSERT_TRUE(client.start_client(*client_ctx, pair.client.get(), nullptr));
  ASSERT_TRUE(server.start_server(*server_ctx, pair.accepted.get()));
  IoStatus c = IoStatus::kWantRead;
  IoStatus s = IoStatus::kWantRead;
  for (int i = 0; i < 200 && (c != IoStatus::kOk || s != IoStatus::kOk); ++i) {
    if (c != IoStatus::kOk) c = client.handshake();
    if (s != IoStatus::kOk) s = server.handshake();
    ASSERT_NE(c, IoStatus::kTlsError);
    ASSERT_NE(s, IoStatus::kTlsError);
    if (c != IoStatus::kOk || s != IoStatus::kOk) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(c, IoStatus::kOk);
  ASSERT_EQ(s, IoStatus::kOk);
  char buffer[64];
  while (server.read(buffer, sizeof buffer).status == IoStatus::kOk) {  // TLS 1.3 tickets and such
  }

  const TimeNs before_send = monotonic_now_ns();
  ASSERT_EQ(client.write("GET", 3).status, IoStatus::kOk);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the record waits in the socket
  const IoResult r = server.read(buffer, sizeof buffer);
  const TimeNs after_read = monotonic_now_ns();
  ASSERT_EQ(r.status, IoStatus::kOk);
  ASSERT_EQ(std::string(buffer, r.bytes), "GET");
  const TimeNs arrival_ns = server.receive_stamp();
  EXPECT_GE(arrival_ns + 1'000'000, before_send);
  EXPECT_LT(arrival_ns, after_read - 10'000'000);
  // A read that takes nothing from the socket has no stamp.
  EXPECT_EQ(server.read(buffer, sizeof buffer).status, IoStatus::kWantRead);
  EXPECT_EQ(server.receive_stamp(), 0);
}

}  // namespace
}  // namespace pacer::net
