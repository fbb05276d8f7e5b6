// See recorder.h.
#include "engine/record/recorder.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "net/tls_stream.h"
#include "report/run_report.h"

namespace pacer::engine {

namespace {
constexpr TimeNs kRateSampleNs = 100 * kNsPerMs;  // wrk samples Req/Sec every 100 ms

// A recorded request's latency under its name (or, never sent, with none:
// kUnsent), in the censored histogram if it is, and in the interval's alike.
void record_latency(WorkerResult& result, IntervalSnapshot* interval, stats::NameId name, TimeNs latency_ns,
                    bool censored, std::int64_t count) {
  if (name != kUnsent) {
    result.names.record_latency(name, latency_ns, count);
  } else {
    result.unsent_latency.record_n(latency_ns, count);
  }
  if (censored) result.latency_censored.record_n(latency_ns, count);
  if (interval != nullptr) {
    if (name != kUnsent) {
      interval->latency_by_name.record_n(name, latency_ns, count);
    } else {
      interval->unsent_latency.record_n(latency_ns, count);
    }
  }
}

}  // namespace

Recorder::Recorder(const SharedRun& shared)
    : shared_(shared), result_(report::make_rate_histogram()) {}

WorkerResult Recorder::fresh_result() const {
  // Per-name records: the names known now (the targets', "(other)" if they
  // passed --max-names, the script's static request's, a script's added since)
  // record without allocating.
  WorkerResult fresh(report::make_rate_histogram());
  const stats::NameTable& names = *shared_.names;
  fresh.names = stats::NameRecorder(names.id_limit());
  fresh.names.prepare(std::max(result_.names.size(), names.overflowed() ? names.id_limit() : names.size()));
  fresh.first_error.reserve(256);
  return fresh;
}

void Recorder::prepare() {
  result_ = fresh_result();
  if (shared_.interval_ns > 0) {
    intervals_ = std::make_unique<IntervalRing>();
    intervals_->size_names(result_.names.size());
    filling_ = intervals_->slot_to_fill();  // slot 0: the ring is empty
  }
}

void Recorder::reset(TimeNs from_ns, TimeNs now_ns) {
  WorkerResult fresh = fresh_result();
  fresh.first_error = std::move(result_.first_error);
  fresh.tls_first_error = result_.tls_first_error;
  fresh.tls_first_error_ns = result_.tls_first_error_ns;
  fresh.first_response = std::move(result_.first_response);  // the sessions keep no Server header once it is known
  fresh.connections_up_ns = result_.connections_up_ns;        // noted once, when the last connection first opened
  result_ = std::move(fresh);
  reset_from_ns_ = from_ns;
  at_interval_start_ = {};
  scenario_errors_at_interval_start_ = {};
  window_latency_ns_ = 0;
  service_ns_sum_ = 0;
  service_ns_at_interval_start_ = 0;
  responses_at_sample_ = 0;
  next_sample_ns_ = now_ns + kRateSampleNs;
}

void Recorder::start(TimeNs now_ns) {
  load_.start(now_ns);
  next_sample_ns_ = std::max(now_ns, record_from()) + kRateSampleNs;
  if (intervals_) next_interval_ns_ = shared_.record_from_ns + shared_.interval_ns;
}

void Recorder::unsent_again(stats::NameId name, TimeNs t_sched) {
  if (!recorded(t_sched)) return;
  --result_.counters.requests_sent;
  --result_.names.counts(name).requests_sent;
}

void Recorder::response(stats::NameId name, int status, TimeNs t_sched, TimeNs t_send, TimeNs t_first, TimeNs done,
                        bool service) {
  stats::Counters& counters = result_.counters;
  if (!recorded(t_sched)) {
    ++counters.warmup_responses;
    return;
  }
  ++counters.responses;
  if (status >= 0 && status <= stats::kMaxStatusCode) ++counters.status_counts[static_cast<std::size_t>(status)];
  if (status >= 400) ++counters.errors.status;
  stats::NameCounts& named = result_.names.counts(name);
  ++named.responses;
  if (status < 200 || status >= 400) ++named.non_2xx_3xx;
  if (status >= 400) ++named.errors.status;
  const TimeNs latency_ns = done - t_sched;
  record_latency(result_, filling_, name, latency_ns, false, 1);
  window_latency_ns_ += latency_ns;
  // Time to first byte, from the send (a response always has a first byte; a
  // script's later batch responses share their token's first one).
  const TimeNs ttfb_ns = std::min(t_first != 0 ? t_first : done, done) - t_send;
  result_.names.record_ttfb(name, ttfb_ns);
  if (filling_ != nullptr) filling_->ttfb_by_name.record_n(name, ttfb_ns, 1);
  if (service) {
    result_.service.record(done - t_send);
    service_ns_sum_ += done - t_send;
  }
}

void Recorder::succeeded(stats::NameId name, TimeNs t_sched) {
  std::uint64_t& status_errors = result_.counters.errors.status;
  if (!recorded(t_sched) || status_errors == 0) return;
  --status_errors;
  std::uint64_t& interval_start = at_interval_start_.errors.status;
  if (interval_start > status_errors) interval_start = status_errors;  // counted in an interval already published
  result_.names.unfail_status(name);
}

void Recorder::failed(stats::NameId name, TimeNs t_sched, ErrorField error) {
  if (!recorded(t_sched)) return;
  ++(result_.counters.errors.*error);
  ++(result_.names.counts(name).errors.*error);
}

void Recorder::censored(stats::NameId name, TimeNs latency_ns, std::int64_t count) {
  record_latency(result_, filling_, name, latency_ns, true, count);
}

void Recorder::count(ErrorField error, TimeNs now_ns, std::uint64_t n) {
  if (now_ns >= record_from()) result_.counters.errors.*error += n;
}

void Recorder::backlog_depth(std::uint64_t depth) {
  result_.counters.peak_backlog = std::max<std::uint64_t>(result_.counters.peak_backlog, depth);
}

void Recorder::redirect(TimeNs t_sched) {
  if (recorded(t_sched)) ++result_.counters.redirects;
}

void Recorder::decoded(TimeNs t_sched, std::uint64_t bytes) {
  if (recorded(t_sched)) result_.counters.bytes_decoded += bytes;
}

void Recorder::connected(TimeNs now_ns, TimeNs took_ns) {
  ++result_.counters.connects;
  if (took_ns >= 0 && now_ns >= record_from()) {
    result_.connect.record(took_ns);
    if (filling_ != nullptr) filling_->connect.record(took_ns);
  }
}

void Recorder::tunneled(TimeNs now_ns, TimeNs took_ns) {
  if (now_ns >= record_from()) result_.tunnel.record(took_ns);
}

void Recorder::handshaken(TimeNs now_ns, TimeNs took_ns, bool resumed) {
  ++result_.counters.tls_handshakes;
  if (resumed) ++result_.counters.tls_resumed;
  if (now_ns >= record_from()) result_.tls_handshake.record(took_ns);
}

void Recorder::note_error(int err, const char* what) {
  if (!result_.first_error.empty()) return;
  result_.first_error = err != 0 ? fmt::format("{}: {}", what, std::strerror(err)) : std::string(what);
}

void Recorder::note_tls_failure(TimeNs now_ns, const char* reason, const net::TlsStream& tls) {
  if (result_.tls_first_error_ns >= 0) return;
  result_.tls_first_error_ns = now_ns;
  if (reason != nullptr) {
    std::snprintf(result_.tls_first_error.data(), result_.tls_first_error.size(), "%s", reason);
  } else {
    tls.describe_failure(result_.tls_first_error);
  }
}

std::optional<TimeNs> Recorder::sample_rate(TimeNs now_ns) {
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

TimeNs Recorder::next_due_ns(bool draining) const {
  // Rate samples stop with the drain (the loop no longer takes them).
  return std::min(draining ? kNeverNs : next_sample_ns_, next_interval_ns_);
}

void Recorder::publish_intervals(TimeNs now_ns, bool final, const IntervalGauges& gauges) {
  // One snapshot per boundary passed; the final call closes the partial last one.
  while (final || now_ns >= next_interval_ns_) {
    if (filling_ == nullptr) return;  // already closed by the final call
    if (!final && !intervals_->next_slot_free()) {  // the controller is behind: keep accumulating
      next_interval_ns_ += shared_.interval_ns;
      return;
    }
    publish_slot(final ? now_ns : next_interval_ns_, now_ns, final, gauges);
    if (final) return;
    next_interval_ns_ += shared_.interval_ns;
  }
}

void Recorder::publish_cut(TimeNs at_ns, TimeNs now_ns, const IntervalGauges& gauges) {
  publish_intervals(std::min(now_ns, at_ns), false, gauges);  // the boundaries up to the end (it may be one)
  if (filling_ == nullptr || at_ns <= closed_at_ns_ || at_ns < shared_.record_from_ns ||
      !intervals_->next_slot_free()) {
    return;  // already cut there, still warming up, or the controller is behind (the drain stays folded in)
  }
  publish_slot(at_ns, now_ns, false, gauges);
}

void Recorder::publish_slot(TimeNs end_ns, TimeNs now_ns, bool final, const IntervalGauges& gauges) {
  {
    IntervalSnapshot& slot = *filling_;  // its histogram already holds the interval's latencies
    const stats::Counters& c = result_.counters;
    slot.sent = c.requests_sent - at_interval_start_.requests_sent;
    slot.completed = c.responses - at_interval_start_.responses;
    slot.scheduled = c.scheduled - at_interval_start_.scheduled;
    slot.errors = c.errors;
    slot.errors.subtract(at_interval_start_.errors);
    slot.bytes_read = c.bytes_read - at_interval_start_.bytes_read;
    slot.bytes_written = c.bytes_written - at_interval_start_.bytes_written;
    for (std::size_t code = 0; code < c.status_counts.size(); ++code) {
      slot.status_counts[code] = c.status_counts[code] - at_interval_start_.status_counts[code];
    }
    if (gauges.scenario_totals) {
      const stats::ScenarioErrorCounts& s = *gauges.scenario_totals;
      slot.scenario_errors = {s.check - scenario_errors_at_interval_start_.check,
                              s.script - scenario_errors_at_interval_start_.script};
      scenario_errors_at_interval_start_ = s;
    }
    slot.end_ns = end_ns;
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
    intervals_->publish();
    filling_ = final ? nullptr : intervals_->slot_to_fill();
    at_interval_start_.requests_sent = c.requests_sent;
    at_interval_start_.responses = c.responses;
    at_interval_start_.scheduled = c.scheduled;
    at_interval_start_.errors = c.errors;
    at_interval_start_.bytes_read = c.bytes_read;
    at_interval_start_.bytes_written = c.bytes_written;
    at_interval_start_.status_counts = c.status_counts;
  }
}

}  // namespace pacer::engine
