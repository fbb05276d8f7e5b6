// See interval_writer.h.
#include "engine/record/interval_writer.h"

#include <algorithm>

namespace pacer::engine {

namespace {
constexpr TimeNs kRateSampleNs = 100 * kNsPerMs;  // wrk samples Req/Sec every 100 ms
}  // namespace

void IntervalWriter::prepare(std::size_t names) {
  if (shared_.interval_ns <= 0) return;
  ring_ = std::make_unique<IntervalRing>();
  ring_->size_names(names);
  filling_ = ring_->slot_to_fill();  // slot 0: the ring is empty
}

void IntervalWriter::start(TimeNs now_ns, TimeNs record_from_ns) {
  next_sample_ns_ = std::max(now_ns, record_from_ns) + kRateSampleNs;
  if (ring_) next_interval_ns_ = shared_.record_from_ns + shared_.interval_ns;
}

void IntervalWriter::reset(TimeNs now_ns) {
  at_interval_start_ = {};
  scenario_errors_at_interval_start_ = {};
  window_latency_ns_ = 0;
  service_ns_sum_ = 0;
  service_ns_at_interval_start_ = 0;
  responses_at_sample_ = 0;
  next_sample_ns_ = now_ns + kRateSampleNs;
}

std::optional<TimeNs> IntervalWriter::sample_rate(TimeNs now_ns) {
  if (now_ns < next_sample_ns_) return std::nullopt;
  const TimeNs window = now_ns - (next_sample_ns_ - kRateSampleNs);
  const std::uint64_t done = result_.counters.responses - responses_at_sample_;
  result_.rate_samples.record(static_cast<std::int64_t>(static_cast<double>(done) * 1e9 / static_cast<double>(window)));
  const TimeNs mean_latency_ns = done > 0 ? window_latency_ns_ / static_cast<TimeNs>(done) : 0;
  window_latency_ns_ = 0;
  responses_at_sample_ = result_.counters.responses;
  next_sample_ns_ = now_ns + kRateSampleNs;
  return mean_latency_ns;
}

TimeNs IntervalWriter::next_due_ns(bool draining) const {
  // Rate samples stop with the drain (the loop no longer takes them).
  return std::min(draining ? kNeverNs : next_sample_ns_, next_interval_ns_);
}

void IntervalWriter::publish_due(TimeNs now_ns, bool final, const IntervalGauges& gauges) {
  // One snapshot per boundary passed; the final call closes the partial last one.
  while (final || now_ns >= next_interval_ns_) {
    if (filling_ == nullptr) return;  // already closed by the final call
    if (!final && !ring_->next_slot_free()) {  // the controller is behind: keep accumulating
      next_interval_ns_ += shared_.interval_ns;
      return;
    }
    publish(final ? now_ns : next_interval_ns_, now_ns, final, gauges);
    if (final) return;
    next_interval_ns_ += shared_.interval_ns;
  }
}

void IntervalWriter::publish_cut(TimeNs at_ns, TimeNs now_ns, const IntervalGauges& gauges) {
  publish_due(std::min(now_ns, at_ns), false, gauges);  // the boundaries up to the end (it may be one)
  if (filling_ == nullptr || at_ns < shared_.record_from_ns || !ring_->next_slot_free()) {
    return;  // still warming up, or the controller is behind (the drain stays folded in)
  }
  if (at_ns > closed_at_ns_) publish(at_ns, now_ns, false, gauges);  // else already cut there (a boundary)
  cut_ = true;  // what follows is the drain
}

void IntervalWriter::publish(TimeNs end_ns, TimeNs now_ns, bool final, const IntervalGauges& gauges) {
  IntervalSnapshot& slot = *filling_;  // its histograms already hold the interval's latencies
  const stats::Counters& c = result_.counters;
  slot.sent = c.requests_sent - at_interval_start_.requests_sent;
  slot.completed = c.responses - at_interval_start_.responses;
  slot.scheduled = c.scheduled - at_interval_start_.scheduled;
  slot.errors = c.errors;
  slot.errors.subtract(at_interval_start_.errors);
  slot.bytes_read = c.bytes_read - at_interval_start_.bytes_read;
  slot.bytes_written = c.bytes_written - at_interval_start_.bytes_written;
  slot.connects = c.connects - at_interval_start_.connects;
  for (std::size_t code = 0; code < c.status_counts.size(); ++code) {
    slot.status_counts[code] = c.status_counts[code] - at_interval_start_.status_counts[code];
  }
  if (gauges.scenario_totals) {
    const stats::ScenarioErrorCounts& s = *gauges.scenario_totals;
    slot.scenario_errors = {s.check - scenario_errors_at_interval_start_.check,
                            s.script - scenario_errors_at_interval_start_.script,
                            s.check_on_errors - scenario_errors_at_interval_start_.check_on_errors};
    scenario_errors_at_interval_start_ = s;
  }
  slot.end_ns = end_ns;
  slot.drain = cut_;
  closed_at_ns_ = end_ns;
  slot.open_connections = gauges.open_connections;
  slot.backlog = gauges.backlog;
  slot.schedule_lag_ns = gauges.schedule_lag_ns;
  slot.in_flight = gauges.in_flight;
  slot.oldest_in_flight_ns = gauges.oldest_in_flight_ns;
  slot.in_flight_over_interval = gauges.in_flight_over_interval;
  slot.users = gauges.users;
  slot.service_ns_sum = service_ns_sum_ - service_ns_at_interval_start_;
  slot.load = load_.take(now_ns);
  result_.names.take_interval(slot.names);
  service_ns_at_interval_start_ = service_ns_sum_;
  ring_->publish();
  filling_ = final ? nullptr : ring_->slot_to_fill();
  at_interval_start_.requests_sent = c.requests_sent;
  at_interval_start_.responses = c.responses;
  at_interval_start_.scheduled = c.scheduled;
  at_interval_start_.errors = c.errors;
  at_interval_start_.bytes_read = c.bytes_read;
  at_interval_start_.bytes_written = c.bytes_written;
  at_interval_start_.connects = c.connects;
  at_interval_start_.status_counts = c.status_counts;
}

}  // namespace pacer::engine
