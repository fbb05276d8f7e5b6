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
    // A capture at its cap was cut by the trace, not by the peer.
    out.append(bytes.size() >= WireTrace::kMaxCaptureBytes
                   ? fmt::format("* (head cut by the trace: it keeps the first {} KiB of each side)\n",
                                 WireTrace::kMaxCaptureBytes / 1024)
                   : std::string("* (the head was not complete)\n"));
    return;
  }
  const std::string_view body = bytes.substr(head_end + 4);
  if (body.empty()) return;
  append_lines(out, "", body.substr(0, body_cap));
  if (body.size() > body_cap) out.append(fmt::format("* (body cut: the first {} bytes shown)\n", body_cap));
}

}  // namespace

std::string format_framed_request(const proto::Http2Request& request) {
  std::string out;
  for (std::size_t i = 0; i < request.header_count(); ++i) {
    const nghttp2_nv& nv = request.headers()[i];
    const std::string_view name(reinterpret_cast<const char*>(nv.name), nv.namelen);
    const std::string_view value(reinterpret_cast<const char*>(nv.value), nv.valuelen);
    out.append("> ").append(stats::printable_name(name)).append(": ").append(stats::printable_name(value)).append("\n");
  }
  out.append(">\n");
  if (request.has_body()) out.append(fmt::format("* (request body: {} bytes, not shown)\n", request.body().size()));
  return out;
}

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

bool WireTrace::sent(int index, std::uint32_t token, std::uint32_t target, bool fresh) {
  if (tracing(index)) return false;
  const int number = budget_.claim();
  if (number == 0) return false;
  Traced& t = at(index);
  t.active = true;
  t.fresh = fresh;
  t.number = number;
  t.token = token;
  t.request.clear();
  t.response.clear();
  if (!http1() && target < framed_.size()) t.request = format_framed_request(framed_[target]);
  return true;
}

void WireTrace::header(int index, std::uint32_t token, std::string_view name, std::string_view value) {
  if (!tracing(index) || at(index).token != token) return;
  std::string& s = at(index).response;
  if (s.size() >= kMaxCaptureBytes) return;
  s.append("< ").append(stats::printable_name(name)).append(": ").append(stats::printable_name(value)).append("\n");
}

void WireTrace::written(int index, const char* data, std::size_t n) {
  if (!tracing(index) || !http1()) return;
  std::string& s = at(index).request;
  s.append(data, std::min(n, kMaxCaptureBytes - std::min(kMaxCaptureBytes, s.size())));
}

void WireTrace::read(int index, const char* data, std::size_t n) {
  if (!tracing(index) || !http1()) return;
  std::string& s = at(index).response;
  s.append(data, std::min(n, kMaxCaptureBytes - std::min(kMaxCaptureBytes, s.size())));
}

bool WireTrace::ended(int index, std::uint32_t token, int status, const char* error, TimeNs took_ns,
                      std::uint64_t body_bytes) {
  if (!tracing(index) || at(index).token != token) return false;
  Traced& t = at(index);
  t.active = false;
  const std::string where = fmt::format("worker {}, connection {} ({}){}", worker_, index,
                                        t.fresh ? "opened for it" : "reused",
                                        http1() ? "" : fmt::format(", {} stream", protocol_));
  const std::string outcome = status > 0 ? fmt::format("status {} in {:.3f} ms", status, static_cast<double>(took_ns) / 1e6)
                                         : fmt::format("failed ({}) after {:.3f} ms", error,
                                                       static_cast<double>(took_ns) / 1e6);
  std::string text;
  if (http1()) {
    text = format_exchange(t.number, where, t.request, t.response, outcome);
  } else {
    text = fmt::format("* exchange {}: {}\n{}", t.number, where, t.request);
    if (!t.response.empty()) text.append(t.response).append("<\n");
    if (status > 0) text.append(fmt::format("* (response body: {} bytes, not shown)\n", body_bytes));
    text.append(fmt::format("* exchange {}: {}\n", t.number, outcome));
  }
  // One write per exchange: the workers' traces do not interleave inside one.
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace pacer::trace
