// --trace N (docs/output.md, "Tracing exchanges"): the first N exchanges of the
// run printed to standard error as curl -v prints them: the connection, the
// request line and headers (`>`), the response's status line and headers (`<`),
// and up to the first 1 KiB of each body, marked when cut. Counted across
// workers (TraceBudget: exactly N in total). Every line goes through the
// report's sanitiser (stats::printable_name), so a server's bytes cannot put an
// escape sequence on the terminal.
//
// What is shown are the bytes on the wire after TLS: HTTP/1.1's own text. An
// HTTP/2 or HTTP/3 exchange is binary framing; it is announced but its frames are
// not decoded (its pseudo-headers are not shown).
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

#include "core/clock.h"

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

// One exchange's bytes, formatted as curl -v would (pure; tests call it directly).
// request/response: the bytes written and read on its connection while it was
// traced (capped); body_cap: the most body bytes shown of each.
std::string format_exchange(int number, std::string_view where, std::string_view request, std::string_view response,
                            std::string_view outcome, std::size_t body_cap = 1024);

class WireTrace {
 public:
  static constexpr std::size_t kMaxCaptureBytes = 64 * 1024;  // of each side: a head and the body's start

  // budget: the run's; worker: its index; http1: the bytes are HTTP/1.1 text.
  WireTrace(TraceBudget& budget, int worker, bool http1) : budget_(budget), worker_(worker), http1_(http1) {}

  // A request goes out on connection `index`: traced when the connection is not
  // tracing one already and the budget has one left. fresh: the connection's first request.
  void sent(int index, bool fresh);
  bool tracing(int index) const {
    const auto i = static_cast<std::size_t>(index);
    return i < traced_.size() && traced_[i].active;
  }
  void written(int index, const char* data, std::size_t n);
  void read(int index, const char* data, std::size_t n);
  // The traced request on `index` ended: printed. outcome: its status or error class; took_ns: its latency.
  void ended(int index, int status, const char* error, TimeNs took_ns);

 private:
  struct Traced {
    bool active = false;
    bool fresh = false;
    int number = 0;
    std::string request;
    std::string response;
  };
  Traced& at(int index);

  TraceBudget& budget_;
  const int worker_;
  const bool http1_;
  std::vector<Traced> traced_;
};

}  // namespace pacer::trace
