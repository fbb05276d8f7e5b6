// The datagram path: packets of a batch arrive as the same datagrams, in order,
// whether they went as GSO trains or one per message; recvmmsg reads them with
// their receive stamps; a port nothing listens on is reported as ECONNREFUSED.
#include "net/udp_io.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "net/receive_stamp.h"

namespace pacer::net {
namespace {

struct Receiver {
  int fd = -1;
  net::Address address;
  Receiver() {
    fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    net::enable_receive_stamps(fd);
    address.length = sizeof address.storage;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address.storage), &address.length);
  }
  ~Receiver() { ::close(fd); }
};

void fill(PacketBatch& batch, const std::vector<std::size_t>& sizes) {
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::memset(batch.slot(), static_cast<int>('a' + i), sizes[i]);
    batch.commit(sizes[i]);
  }
}

// Reads until `count` datagrams came or 2 s passed; returns their sizes and first bytes.
std::vector<std::pair<std::size_t, char>> receive(int fd, std::size_t count, bool& stamped) {
  std::vector<std::pair<std::size_t, char>> got;
  DatagramReader reader;
  stamped = true;
  for (int round = 0; round < 200 && got.size() < count; ++round) {
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 10);
    const int n = reader.receive(fd);
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      got.emplace_back(reader.length(k), static_cast<char>(reader.data(k)[0]));
      if (reader.stamp(k) == 0) stamped = false;
    }
  }
  return got;
}

class UdpIo : public ::testing::TestWithParam<bool> {};

TEST_P(UdpIo, PacketsArriveAsTheSameDatagramsInOrder) {
  Receiver rx;
  net::Address local;
  const int fd = open_udp_socket(rx.address, local);
  ASSERT_GE(fd, 0);
  PacketBatch batch;
  // Two trains with GSO (3 x 1200 ending in 800, then 1200 and 1000), six messages without.
  const std::vector<std::size_t> sizes{1200, 1200, 1200, 800, 1200, 1000};
  fill(batch, sizes);
  bool gso = GetParam();
  ASSERT_EQ(send_packets(fd, batch, gso), SendStatus::kAllSent);
  EXPECT_TRUE(batch.empty());
  bool stamped = false;
  const auto got = receive(rx.fd, sizes.size(), stamped);
  ASSERT_EQ(got.size(), sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(got[i].first, sizes[i]) << i;
    EXPECT_EQ(got[i].second, static_cast<char>('a' + i)) << i;
  }
  ::close(fd);
}

INSTANTIATE_TEST_SUITE_P(GsoOrNot, UdpIo, ::testing::Bool());

TEST(UdpIoErrors, APortNothingListensOnIsRefused) {
  net::Address nobody;
  {
    Receiver closed_soon;  // bound, then closed: nothing listens on its port
    nobody = closed_soon.address;
  }
  net::Address local;
  const int fd = open_udp_socket(nobody, local);
  ASSERT_GE(fd, 0);
  PacketBatch batch;
  fill(batch, {100});
  bool gso = true;
  ASSERT_EQ(send_packets(fd, batch, gso), SendStatus::kAllSent);
  DatagramReader reader;
  int n = 0;
  for (int round = 0; round < 100 && n == 0; ++round) {
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 10);
    n = reader.receive(fd);
  }
  EXPECT_EQ(n, -ECONNREFUSED);
  ::close(fd);
}

}  // namespace
}  // namespace pacer::net
