// --trace N (docs/output.md, "Tracing exchanges"): the first N exchanges of the
// run printed to standard error as curl -v prints them: the connection, the
// request line and headers (`>`), the response's status line and headers (`<`),
// and up to the first 1 KiB of each body, marked when cut. Counted across
// workers (TraceBudget: exactly N in total). Every line goes through the
// report's sanitiser (stats::printable_name), so a server's bytes cannot put an
// escape sequence on the terminal.
//
// HTTP/1.1: what is shown are the bytes on the wire after TLS, its own text.
// HTTP/2 and HTTP/3 are binary framing: as curl -v, the request's header list
// as sent (pseudo-headers first: :method, :scheme, :authority, :path) and the
// response's header fields as the session decoded them (:status first), then the
// body's length (its bytes are not shown).
//
// Cost: only the N traced exchanges copy their bytes (capped) and print; every
// other request pays one branch. The figures of the run are unchanged. A worker
// thread each (WireTrace); the budget is shared (an atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <span>

#include "core/clock.h"
#include "proto/http2_request.h"

namespace pacer::trace {

class TraceBudget {
 public:
  explicit TraceBudget(int exchanges) : total_(exchanges), left_(exchanges) {}
  // Takes one exchange of the budget: its number in the run (1..N), 0 once N were taken. Any thread.
  int claim() {
    const int left = left_.fetch_sub(1, std::memory_order_relaxed);
    return left > 0 ? total_ - left + 1 : 0;
  }

 private:
  const int total_;
  std::atomic<int> left_;
};

// An HTTP/2 or HTTP/3 request's header list as `> name: value` lines, then its
// body's length (pure).
std::string format_framed_request(const proto::Http2Request& request);

// One exchange's bytes, formatted as curl -v would (pure; tests call it directly).
// request/response: the bytes written and read on its connection while it was
// traced (capped); body_cap: the most body bytes shown of each.
std::string format_exchange(int number, std::string_view where, std::string_view request, std::string_view response,
                            std::string_view outcome, std::size_t body_cap = 1024);

class WireTrace {
 public:
  static constexpr std::size_t kMaxCaptureBytes = 64 * 1024;  // of each side: a head and the body's start

  // budget: the run's; worker: its index; framed: the run's HTTP/2 (or HTTP/3)
  // requests, one per target (they outlive the trace), empty for HTTP/1.1, whose
  // bytes on the wire are text.
  WireTrace(TraceBudget& budget, int worker, std::span<const proto::Http2Request> framed, const char* protocol = "HTTP/2")
      : budget_(budget), worker_(worker), framed_(framed), protocol_(protocol) {}

  // Request `token` (request `target`) goes out on connection `index`: traced
  // when the connection is not tracing one already and the budget has one left
  // (true). fresh: the connection's first request.
  bool sent(int index, std::uint32_t token, std::uint32_t target, bool fresh);
  bool tracing(int index) const {
    const auto i = static_cast<std::size_t>(index);
    return i < traced_.size() && traced_[i].active;
  }
  void written(int index, const char* data, std::size_t n);
  void read(int index, const char* data, std::size_t n);
  // HTTP/2, HTTP/3: a response header field of `token` on `index`.
  void header(int index, std::uint32_t token, std::string_view name, std::string_view value);
  // Request `token` on `index` ended: printed if it was the traced one (true).
  // status or error: its outcome; took_ns: its latency; body_bytes: its
  // response body's length (HTTP/2 and HTTP/3 print it).
  bool ended(int index, std::uint32_t token, int status, const char* error, TimeNs took_ns,
             std::uint64_t body_bytes = 0);

 private:
  struct Traced {
    bool active = false;
    bool fresh = false;
    int number = 0;
    std::uint32_t token = 0;
    std::string request;
    std::string response;
  };
  Traced& at(int index);
  bool http1() const { return framed_.empty(); }

  TraceBudget& budget_;
  const int worker_;
  const std::span<const proto::Http2Request> framed_;
  const char* protocol_;  // "HTTP/2" or "HTTP/3"
  std::vector<Traced> traced_;
};

}  // namespace pacer::trace
