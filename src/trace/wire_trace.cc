// See wire_trace.h.
#include "trace/wire_trace.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "stats/name_table.h"

namespace pacer::trace {

namespace {

// Appends `text`'s lines, each after `prefix`, sanitised; CR LF or LF end a line.
void append_lines(std::string& out, std::string_view prefix, std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.append(prefix).append(stats::printable_name(line)).append("\n");
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
}

// One side: its head (each line after `mark`), then up to body_cap bytes of what follows.
void append_side(std::string& out, std::string_view mark, std::string_view bytes, std::size_t body_cap) {
  const std::size_t head_end = bytes.find("\r\n\r\n");
  const std::string_view head = bytes.substr(0, head_end);
  append_lines(out, mark, head);
  out.append(mark).append("\n");
  if (head_end == std::string_view::npos) {
    out.append("* (the head was not complete)\n");
    return;
  }
  const std::string_view body = bytes.substr(head_end + 4);
  if (body.empty()) return;
  append_lines(out, "", body.substr(0, body_cap));
  if (body.size() > body_cap) out.append(fmt::format("* (body cut: the first {} bytes shown)\n", body_cap));
}

}  // namespace

std::string format_exchange(int number, std::string_view where, std::string_view request, std::string_view response,
                            std::string_view outcome, std::size_t body_cap) {
  std::string out = fmt::format("* exchange {}: {}\n", number, where);
  append_side(out, "> ", request, body_cap);
  if (!response.empty()) append_side(out, "< ", response, body_cap);
  out.append("* exchange ").append(std::to_string(number)).append(": ").append(outcome).append("\n");
  return out;
}

WireTrace::Traced& WireTrace::at(int index) {
  const auto i = static_cast<std::size_t>(index);
  if (i >= traced_.size()) traced_.resize(i + 1);
  return traced_[i];
}

void WireTrace::sent(int index, bool fresh) {
  if (tracing(index)) return;
  const int number = budget_.claim();
  if (number == 0) return;
  Traced& t = at(index);
  t.active = true;
  t.fresh = fresh;
  t.number = number;
  t.request.clear();
  t.response.clear();
}

void WireTrace::written(int index, const char* data, std::size_t n) {
  if (!tracing(index)) return;
  std::string& s = at(index).request;
  s.append(data, std::min(n, kMaxCaptureBytes - std::min(kMaxCaptureBytes, s.size())));
}

void WireTrace::read(int index, const char* data, std::size_t n) {
  if (!tracing(index)) return;
  std::string& s = at(index).response;
  s.append(data, std::min(n, kMaxCaptureBytes - std::min(kMaxCaptureBytes, s.size())));
}

void WireTrace::ended(int index, int status, const char* error, TimeNs took_ns) {
  if (!tracing(index)) return;
  Traced& t = at(index);
  t.active = false;
  const std::string where = fmt::format("worker {}, connection {} ({}){}", worker_, index,
                                        t.fresh ? "opened for it" : "reused",
                                        http1_ ? "" : "; HTTP/2 or HTTP/3 framing, not decoded");
  const std::string outcome = status > 0 ? fmt::format("status {} in {:.3f} ms", status, static_cast<double>(took_ns) / 1e6)
                                         : fmt::format("failed ({}) after {:.3f} ms", error,
                                                       static_cast<double>(took_ns) / 1e6);
  const std::string text = http1_ ? format_exchange(t.number, where, t.request, t.response, outcome)
                                  : fmt::format("* exchange {}: {}\n* exchange {}: {}\n", t.number, where, t.number, outcome);
  // One write per exchange: the workers' traces do not interleave inside one.
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace pacer::trace
