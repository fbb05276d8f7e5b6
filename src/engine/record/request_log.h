// --log-requests FILE (docs/output.md, "Per-request log"): one row per request
// that was sent and ended (a response or an error), as CSV or NDJSON, sampled
// by --log-sample with a seeded generator per worker (the same run, the same rows).
//
// RequestLogFile is the run's file: opened before the clock starts (a regular
// file is written to a temporary file beside it and renamed into place only when
// every row was written; a device or FIFO is written in place). Each worker has a
// RequestLog: rows are formatted into its own buffer (allocated before the run;
// nothing allocated per request, no lock per request) and the buffer is handed
// to the file when nearly full, whole (under the file's mutex: once per 64 KiB,
// not per request). A write that fails (a full disk: ENOSPC, EIO) marks the file
// failed; the rows after it are dropped and finish() reports the failure, so the
// file has every sampled row or the run says it does not.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::engine {

class RequestLog;

class RequestLogFile {
 public:
  RequestLogFile() = default;
  // Main thread, before the run: opens config.request_log.path (checked at parse time).
  static Result<std::unique_ptr<RequestLogFile>> open(const Config& config);
  ~RequestLogFile();
  RequestLogFile(const RequestLogFile&) = delete;
  RequestLogFile& operator=(const RequestLogFile&) = delete;

  RequestLogFormat format() const { return format_; }
  double sample() const { return sample_; }
  std::uint64_t seed() const { return seed_; }

  // Main thread, as each worker is built: its log, flushed by finish().
  void attach(RequestLog* log);
  // Any worker: appends bytes (whole rows); false once a write has failed.
  bool write(std::string_view bytes);
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Main thread, after the join: the workers' last rows, then the file closed
  // and renamed into place. An error (kRuntime) names the file, the reason and
  // how many rows were written before it.
  Status finish();

 private:
  std::string path_;       // as given
  std::string temp_path_;  // a regular file's temporary (renamed to path_'s target); empty: written in place
  std::string final_path_;
  int fd_ = -1;
  RequestLogFormat format_ = RequestLogFormat::kCsv;
  double sample_ = 1.0;
  std::uint64_t seed_ = 0;
  std::vector<RequestLog*> logs_;
  std::mutex write_mutex_;
  int write_errno_ = 0;              // under write_mutex_
  std::atomic<bool> failed_{false};
};

// One row's figures, times on the worker's monotonic clock (ns).
struct RequestRow {
  TimeNs t_sched = 0;
  TimeNs t_send = 0;
  TimeNs t_first = 0;      // 0: no first byte
  TimeNs t_done = 0;       // the response's end, or the failure's time
  int status = 0;          // 0: no response
  const char* error = "";  // the error class ("" for a success): the report's for this request
  std::string_view name;
  std::string_view check;  // u:fail's message on it ("" when no check failed)
  int connection = 0;
  bool recorded = true;
};

class RequestLog {
 public:
  static constexpr std::size_t kBufferBytes = 64 * 1024;

  // Attached to file (which flushes it at its finish); main thread, before the run.
  RequestLog(RequestLogFile& file, int worker);

  // A request ended: its row, if the sampler keeps it (one seeded draw per request).
  // unix_offset_ns: the wall clock minus the monotonic clock (SharedRun's start times).
  void add(const RequestRow& row, std::int64_t unix_offset_ns);
  // A scenario's request ended, but its outcome is not final: its user may still
  // fail a check on it (u:fail) or accept its status (u:success()). The row is
  // held (its bytes and connect taken now) until settle() on its connection,
  // which the connection's next held row, the user's release and the end do.
  void hold(const RequestRow& row, std::int64_t unix_offset_ns);
  // The held row of connection `index` (if any): a check failed on it (its error
  // becomes `check` unless it has a class); its status >= 400 accepted (no error).
  void check(int index, std::string_view message);
  void accept(int index);
  void settle(int index);
  void settle_all();
  // Connection `index` opened after connect_ns (TCP connect and handshake): the
  // first request it ends carries it.
  void opened(int index, TimeNs connect_ns);
  void bytes_read(int index, std::uint64_t n) { at(index).in += n; }
  void bytes_written(int index, std::uint64_t n) { at(index).out += n; }
  // Takes back bytes counted by bytes_read since the connection's last row (HTTP/3: a datagram it dropped).
  void bytes_unread(int index, std::uint64_t n) {
    PerConnection& c = at(index);
    c.in -= std::min(n, c.in - c.in_mark);
  }
  // Hands the buffer to the file (full, or at the end).
  void flush();

 private:
  struct PerConnection {
    std::uint64_t in = 0;
    std::uint64_t out = 0;
    std::uint64_t in_mark = 0;   // at the last row of the connection
    std::uint64_t out_mark = 0;
    TimeNs connect_ns = -1;      // -1: taken (or none)
  };
  PerConnection& at(int index) {
    const auto i = static_cast<std::size_t>(index);
    if (i >= connections_.size()) connections_.resize(i + 1);  // once per connection, at its first event
    return connections_[i];
  }
  // A row with what its connection moved for it, taken when the request ended.
  struct Taken {
    RequestRow row;
    std::int64_t unix_offset_ns = 0;
    std::uint64_t bytes_in = 0;
    std::uint64_t bytes_out = 0;
    TimeNs connect_ns = -1;
  };
  struct Held {
    Taken row;
    std::string check;  // the row's check points here when it is written
    bool held = false;
  };
  Held& held_at(int index) {
    const auto i = static_cast<std::size_t>(index);
    if (i >= held_.size()) held_.resize(i + 1);  // once per connection
    return held_[i];
  }
  Taken take(const RequestRow& row, std::int64_t unix_offset_ns);
  void write_row(const Taken& t);
  bool draw();
  void append(std::string_view text);
  void append_number(std::int64_t n);
  void append_name(std::string_view name);

  RequestLogFile& file_;
  const int worker_;
  const bool csv_;
  const std::uint64_t threshold_;  // draw(): a row is kept when the next number is below it
  const bool all_;                 // --log-sample 1: every row
  std::uint64_t rng_;
  std::unique_ptr<char[]> buffer_;
  std::size_t used_ = 0;
  std::vector<PerConnection> connections_;
  std::vector<Held> held_;  // by connection index: a scenario's rows until their outcome is final
};

}  // namespace pacer::engine
