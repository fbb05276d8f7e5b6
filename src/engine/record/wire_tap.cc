// See wire_tap.h.
#include "engine/record/wire_tap.h"

#include <span>

#include "stats/name_table.h"

namespace pacer::engine {

WireTap::WireTap(const SharedRun& shared, const Recorder& recorder, int worker)
    : shared_(shared), recorder_(recorder) {
  if (shared.request_log != nullptr) log_ = std::make_unique<RequestLog>(*shared.request_log, worker);
  if (shared.trace != nullptr) {
    // HTTP/2 and HTTP/3 send the requests' header lists (their pseudo-headers are traced); HTTP/1.1 its text.
    const bool framed = shared.http2_request != nullptr || shared.http3 != nullptr;
    trace_ = std::make_unique<trace::WireTrace>(
        *shared.trace, worker,
        framed && shared.requests != nullptr ? shared.requests->http2() : std::span<const proto::Http2Request>(),
        shared.http3 != nullptr ? "HTTP/3" : "HTTP/2");
  }
}

void WireTap::end_failed(Connection& c, const RequestSlot& slot, TimeNs now_ns, const char* error) {
  if (log_) log_row(c, slot, now_ns, 0, error);
  if (trace_ && trace_->ended(c.index, slot.token, 0, error, now_ns - slot.t_sched)) c.session->report_headers(false);
}

void WireTap::log_row(const Connection& c, const RequestSlot& slot, TimeNs done, int status, const char* error) {
  RequestRow row;
  row.t_sched = slot.t_sched;
  row.t_send = slot.t_send;
  row.t_first = slot.t_first;
  row.t_done = done;
  row.status = status;
  row.error = error;
  row.name = slot.name == kUnsent || shared_.names == nullptr ? std::string_view() : shared_.names->name(slot.name);
  row.connection = c.index;
  row.recorded = recorder_.recorded(slot.t_sched);
  if (hold_) {
    log_->hold(row, shared_.start_unix_ns - shared_.start_ns);
  } else {
    log_->add(row, shared_.start_unix_ns - shared_.start_ns);
  }
}

}  // namespace pacer::engine
