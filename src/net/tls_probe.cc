// See tls_probe.h.
#include "net/tls_probe.h"

#include <poll.h>

#include <array>
#include <string>

namespace pacer::net {

Result<TimeNs> handshake_blocking(TlsStream& stream, const TlsContext& context, int fd, TimeNs timeout_ns) {
  const TimeNs start_ns = monotonic_now_ns();
  if (!stream.start_client(context, fd, nullptr)) return runtime_error("cannot create a TLS connection (out of memory)");
  while (true) {
    const IoStatus step = stream.handshake();
    if (step == IoStatus::kOk) return monotonic_now_ns() - start_ns;
    if (step != IoStatus::kWantRead && step != IoStatus::kWantWrite) {
      std::array<char, 256> reason{};
      stream.describe_failure(reason);
      return runtime_error(std::string("TLS handshake failed: ") + reason.data());
    }
    const TimeNs left_ns = start_ns + timeout_ns - monotonic_now_ns();
    if (left_ns <= 0) return runtime_error("TLS handshake timed out (--timeout)");
    pollfd p{fd, static_cast<short>(step == IoStatus::kWantRead ? POLLIN : POLLOUT), 0};
    const TimeNs kNsPerMs = 1'000'000;
    ::poll(&p, 1, static_cast<int>((left_ns + kNsPerMs - 1) / kNsPerMs));
  }
}

}  // namespace pacer::net
