// A blocking QUIC handshake for the start-up check. See probe.h.
#include "quic/probe.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/unique_fd.h"
#include "net/udp_io.h"
#include "quic/connection.h"
#include "report/units.h"

namespace pacer::quic {

namespace {

// The probe carries no request: stream data (the server's control streams) is
// credited and dropped.
class IgnoreStreams final : public StreamHandler {
 public:
  explicit IgnoreStreams(Connection& c) : c_(c) {}
  int on_stream_data(std::int64_t id, const std::uint8_t*, std::size_t length, bool) override {
    c_.consumed(id, length);
    return 0;
  }
  int on_acked(std::int64_t, std::uint64_t) override { return 0; }
  int on_stream_close(std::int64_t, std::uint64_t) override { return 0; }
  int on_stream_reset(std::int64_t, std::uint64_t) override { return 0; }
  int on_stop_sending(std::int64_t, std::uint64_t) override { return 0; }
  int on_stream_unblocked(std::int64_t) override { return 0; }
  long next_stream_data(std::int64_t* id, int* fin, ngtcp2_vec*, std::size_t) override {
    *id = -1;
    *fin = 0;
    return 0;
  }
  int on_written(std::int64_t, std::size_t) override { return 0; }
  void on_stream_blocked(std::int64_t) override {}
  void on_stream_shut(std::int64_t) override {}

 private:
  Connection& c_;
};

// One handshake attempt; the error is the reason.
Status try_handshake(const net::Address& address, const TlsClient& tls, TimeNs wait_ns) {
  ConnectionSetup setup;
  setup.tls = &tls;
  setup.remote = address;
  UniqueFd fd(net::open_udp_socket(address, setup.local));
  if (!fd.valid()) return runtime_error(fmt::format("UDP socket: {}", std::strerror(errno)));
  Connection conn;
  IgnoreStreams ignore(conn);
  const TimeNs deadline = monotonic_now_ns() + wait_ns;
  if (!conn.start(setup, &ignore, monotonic_now_ns())) return runtime_error(conn.reason());
  net::PacketBatch out;
  net::DatagramReader in;
  bool gso = true;
  while (!conn.handshake_completed()) {
    TimeNs now = monotonic_now_ns();
    if (!conn.write_packets(out, now)) return runtime_error(conn.reason());
    if (net::send_packets(fd.get(), out, gso) == net::SendStatus::kError) {
      return runtime_error(fmt::format("UDP send: {}", std::strerror(errno)));
    }
    out.clear();
    if (now >= deadline) {
      return runtime_error(fmt::format("no QUIC answer over UDP within {} (is HTTP/3 served on this port?)",
                                       report::format_duration_short(wait_ns)));
    }
    const TimeNs wake = std::min(deadline, conn.expiry());
    pollfd p{fd.get(), POLLIN, 0};
    const int timeout_ms = static_cast<int>(std::clamp<TimeNs>((wake - now + kNsPerMs - 1) / kNsPerMs, 0, 1000));
    ::poll(&p, 1, timeout_ms);
    now = monotonic_now_ns();
    const int n = in.receive(fd.get());
    if (n == -ECONNREFUSED) return runtime_error("nothing listens on this UDP port (ICMP port unreachable)");
    if (n < 0) return runtime_error(fmt::format("UDP receive: {}", std::strerror(-n)));
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (!conn.read_packet(in.data(k), in.length(k), now)) return runtime_error(conn.reason());
    }
    if (conn.expiry() <= now && !conn.handle_expiry(now)) return runtime_error(conn.reason());
  }
  conn.write_close(out, monotonic_now_ns());
  net::send_packets(fd.get(), out, gso);
  return Ok{};
}

}  // namespace

Result<net::Address> probe_handshake(const std::vector<net::Address>& addresses, const TlsClient& tls, TimeNs wait_ns) {
  std::string reason = "no address";
  for (const net::Address& a : addresses) {
    const Status s = try_handshake(a, tls, wait_ns);
    if (s) return a;
    reason = s.error().message;
  }
  return runtime_error(reason);
}

}  // namespace pacer::quic
