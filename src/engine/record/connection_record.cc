// See connection_record.h.
#include "engine/record/connection_record.h"

#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "net/tls_stream.h"

namespace pacer::engine {

void ConnectionRecord::connected(TimeNs now_ns, TimeNs took_ns) {
  ++result_.counters.connects;
  if (took_ns >= 0 && from_.holds(now_ns)) {
    result_.connect.record(took_ns);
    if (IntervalSnapshot* interval = intervals_.filling(); interval != nullptr) interval->connect.record(took_ns);
  }
}

void ConnectionRecord::tunneled(TimeNs now_ns, TimeNs took_ns) {
  if (from_.holds(now_ns)) result_.tunnel.record(took_ns);
}

void ConnectionRecord::handshaken(TimeNs now_ns, TimeNs took_ns, bool resumed) {
  ++result_.counters.tls_handshakes;
  if (resumed) ++result_.counters.tls_resumed;
  if (from_.holds(now_ns)) result_.tls_handshake.record(took_ns);
}

void ConnectionRecord::note_error(int err, const char* what) {
  if (!result_.first_error.empty()) return;
  result_.first_error = err != 0 ? fmt::format("{}: {}", what, std::strerror(err)) : std::string(what);
}

void ConnectionRecord::note_tls_failure(TimeNs now_ns, const char* reason, const net::TlsStream& tls) {
  if (result_.tls_first_error_ns >= 0) return;
  result_.tls_first_error_ns = now_ns;
  if (reason != nullptr) {
    std::snprintf(result_.tls_first_error.data(), result_.tls_first_error.size(), "%s", reason);
  } else {
    tls.describe_failure(result_.tls_first_error);
  }
}

}  // namespace pacer::engine
