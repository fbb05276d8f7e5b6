// See request_log.h.
#include "engine/record/request_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "report/csv_cell.h"

namespace pacer::engine {

namespace {

constexpr std::string_view kCsvHeader =
    "due_unix_us,send_unix_us,latency_ns,ttfb_ns,connect_ns,status,bytes_in,bytes_out,name,error,connection,worker,"
    "recorded,check\n";
constexpr std::size_t kMaxText = 256;       // bytes of a name or a check's message a row keeps
constexpr std::size_t kMaxRowBytes = 4096;  // a row with the longest name and message (escaped) fits

int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Result<std::unique_ptr<RequestLogFile>> RequestLogFile::open(const Config& config) {
  auto file = std::make_unique<RequestLogFile>();
  file->path_ = config.request_log.path;
  file->format_ = config.request_log.format;
  file->sample_ = config.request_log.sample;
  file->seed_ = config.seed;
  const auto failure = [&](int err) {
    return runtime_error(fmt::format("--log-requests: cannot write '{}': {}", file->path_, std::strerror(err)));
  };
  auto target = resolve_output_path(file->path_);
  if (!target) return runtime_error("--log-requests: " + target.error().message);
  struct stat st {};
  const bool exists = ::stat(target->c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    // A device or FIFO (/dev/null, /dev/stdout to a pipe): written in place, as a shell's `>>`.
    auto opened = open_in_place(*target);  // a FIFO nobody reads is refused, never waited on forever
    if (!opened) return runtime_error("--log-requests: " + opened.error().message);
    file->fd_ = opened->release();
  } else {
    // A regular file (or none yet): a temporary beside it, renamed into place once whole.
    file->final_path_ = *target;
    file->temp_path_ = *target + ".tmp." + std::to_string(::getpid());
    file->fd_ = ::open(file->temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (file->fd_ >= 0 && exists) (void)::fchmod(file->fd_, st.st_mode & 07777);
  }
  if (file->fd_ < 0) return failure(errno);
  if (file->format_ == RequestLogFormat::kCsv && !file->write(kCsvHeader)) return failure(file->write_errno_);
  return file;
}

RequestLogFile::~RequestLogFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());  // not finished: no half file in place
}

void RequestLogFile::attach(RequestLog* log) { logs_.push_back(log); }

bool RequestLogFile::write(std::string_view bytes) {
  const std::lock_guard<std::mutex> lock(write_mutex_);
  if (write_errno_ != 0) return false;
  write_errno_ = write_all(fd_, bytes);
  if (write_errno_ == 0) return true;
  failed_.store(true, std::memory_order_relaxed);
  return false;
}

Status RequestLogFile::finish() {
  for (RequestLog* log : logs_) {
    log->settle_all();  // the rows whose outcome a scenario's user could still change
    log->flush();
  }
  logs_.clear();
  int err = write_errno_;
  if (err == 0 && !temp_path_.empty() && ::fsync(fd_) != 0) err = errno;
  if (::close(fd_) != 0 && err == 0) err = errno;
  fd_ = -1;
  if (err == 0 && !temp_path_.empty() && std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) err = errno;
  if (err == 0) {
    temp_path_.clear();
    return Ok{};
  }
  return runtime_error(fmt::format("--log-requests: writing '{}' failed: {}; the log is incomplete{}", path_,
                                   std::strerror(err), temp_path_.empty() ? "" : " and was not kept"));
}

RequestLog::RequestLog(RequestLogFile& file, int worker)
    : file_(file),
      worker_(worker),
      csv_(file.format() == RequestLogFormat::kCsv),
      threshold_(file.sample() >= 1.0 ? ~std::uint64_t{0}
                                      : static_cast<std::uint64_t>(std::ldexp(std::max(0.0, file.sample()), 64))),
      all_(file.sample() >= 1.0),
      rng_(file.seed() * 0x2545f4914f6cdd1dULL + static_cast<std::uint64_t>(worker) + 1),
      buffer_(new char[kBufferBytes]) {
  file.attach(this);
}

bool RequestLog::draw() { return all_ || splitmix(rng_) < threshold_; }  // one draw per request: a seeded sequence

void RequestLog::opened(int index, TimeNs connect_ns) {
  PerConnection& c = at(index);
  c.connect_ns = connect_ns;
  c.in_mark = c.in;
  c.out_mark = c.out;
}

void RequestLog::append(std::string_view text) {
  std::memcpy(buffer_.get() + used_, text.data(), text.size());
  used_ += text.size();
}

void RequestLog::append_number(std::int64_t n) {
  used_ = static_cast<std::size_t>(std::to_chars(buffer_.get() + used_, buffer_.get() + kBufferBytes, n).ptr -
                                   buffer_.get());
}

void RequestLog::append_name(std::string_view name) {
  // CSV: quoted, quotes doubled, a formula's first byte behind a ' (report/csv_cell.h),
  // control bytes as '?' (stats::printable_name's). JSON: a string, with \" \\ and
  // \u00XX for control bytes.
  append("\"");
  if (csv_ && report::starts_like_formula(name)) append("'");
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (csv_) {
      if (ch == '"') append("\"");
      buffer_[used_++] = c < 0x20 || c == 0x7f ? '?' : ch;
    } else if (ch == '"' || ch == '\\') {
      buffer_[used_++] = '\\';
      buffer_[used_++] = ch;
    } else if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      append(escaped);
    } else {
      buffer_[used_++] = ch;
    }
  }
  append("\"");
}

RequestLog::Taken RequestLog::take(const RequestRow& row, std::int64_t unix_offset_ns) {
  PerConnection& c = at(row.connection);
  Taken t{row, unix_offset_ns, c.in - c.in_mark, c.out - c.out_mark, c.connect_ns};
  c.in_mark = c.in;
  c.out_mark = c.out;
  c.connect_ns = -1;
  return t;
}

void RequestLog::add(const RequestRow& row, std::int64_t unix_offset_ns) {
  const Taken t = take(row, unix_offset_ns);
  if (draw()) write_row(t);
}

void RequestLog::hold(const RequestRow& row, std::int64_t unix_offset_ns) {
  settle(row.connection);
  const Taken t = take(row, unix_offset_ns);
  if (!draw()) return;
  Held& h = held_at(row.connection);
  h.row = t;
  h.check.clear();
  h.held = true;
}

void RequestLog::check(int index, std::string_view message) {
  Held& h = held_at(index);
  if (!h.held) return;
  h.check.assign(message.substr(0, kMaxText));  // the slot's capacity is reused: no allocation after the first long one
  if (h.row.row.error[0] == '\0') h.row.row.error = "check";  // a response < 400 (or one accepted) that a check failed
}

void RequestLog::accept(int index) {
  Held& h = held_at(index);
  if (h.held && h.row.row.status >= 400 && std::string_view(h.row.row.error) == "status") h.row.row.error = "";
}

void RequestLog::settle(int index) {
  Held& h = held_at(index);
  if (!h.held) return;
  h.held = false;
  h.row.row.check = h.check;
  write_row(h.row);
}

void RequestLog::settle_all() {
  for (std::size_t i = 0; i < held_.size(); ++i) settle(static_cast<int>(i));
}

void RequestLog::write_row(const Taken& t) {
  const RequestRow& row = t.row;
  const std::int64_t unix_offset_ns = t.unix_offset_ns;
  const std::uint64_t bytes_in = t.bytes_in;
  const std::uint64_t bytes_out = t.bytes_out;
  const TimeNs connect_ns = t.connect_ns;
  if (used_ + kMaxRowBytes > kBufferBytes) flush();
  if (file_.failed()) return;  // the run reports it; nothing more is written
  const std::int64_t due_us = (row.t_sched + unix_offset_ns) / 1000;
  const std::int64_t send_us = (row.t_send + unix_offset_ns) / 1000;
  const std::int64_t ttfb = row.t_first > 0 ? row.t_first - row.t_send : -1;
  const std::string_view name = row.name.substr(0, kMaxText);
  const std::string_view sep = csv_ ? "," : "";
  // A field absent (no first byte, no connect, no status) is empty in CSV and null in NDJSON.
  const auto optional = [&](std::int64_t v) {
    if (v >= 0) {
      append_number(v);
    } else if (!csv_) {
      append("null");
    }
  };
  if (!csv_) append("{\"due_unix_us\":");
  append_number(due_us);
  append(csv_ ? sep : ",\"send_unix_us\":");
  append_number(send_us);
  append(csv_ ? sep : ",\"latency_ns\":");
  append_number(row.t_done - row.t_sched);
  append(csv_ ? sep : ",\"ttfb_ns\":");
  optional(ttfb);
  append(csv_ ? sep : ",\"connect_ns\":");
  optional(connect_ns);
  append(csv_ ? sep : ",\"status\":");
  optional(row.status > 0 ? row.status : -1);
  append(csv_ ? sep : ",\"bytes_in\":");
  append_number(static_cast<std::int64_t>(bytes_in));
  append(csv_ ? sep : ",\"bytes_out\":");
  append_number(static_cast<std::int64_t>(bytes_out));
  append(csv_ ? sep : ",\"name\":");
  append_name(name);
  append(csv_ ? sep : ",\"error\":");
  if (csv_) {
    append(row.error);
  } else if (row.error[0] == '\0') {
    append("null");
  } else {
    append("\"");
    append(row.error);
    append("\"");
  }
  append(csv_ ? sep : ",\"connection\":");
  append_number(row.connection);
  append(csv_ ? sep : ",\"worker\":");
  append_number(worker_);
  append(csv_ ? sep : ",\"recorded\":");
  append(csv_ ? (row.recorded ? "1" : "0") : (row.recorded ? "true" : "false"));
  append(csv_ ? sep : ",\"check\":");
  if (!row.check.empty()) {
    append_name(row.check);
  } else if (!csv_) {
    append("null");
  }
  append(csv_ ? "\n" : "}\n");
}

void RequestLog::flush() {
  if (used_ == 0) return;
  (void)file_.write(std::string_view(buffer_.get(), used_));
  used_ = 0;
}

}  // namespace pacer::engine
