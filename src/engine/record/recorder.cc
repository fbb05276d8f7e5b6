// See recorder.h.
#include "engine/record/recorder.h"

#include <algorithm>

#include "report/run_report.h"

namespace pacer::engine {

namespace {

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
    : shared_(shared),
      from_(shared.record_from_ns),
      result_(report::make_rate_histogram()),
      intervals_(shared, result_, load_),
      connections_(result_, from_, intervals_) {}

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
  intervals_.prepare(result_.names.size());
}

void Recorder::reset(TimeNs from_ns, TimeNs now_ns) {
  WorkerResult fresh = fresh_result();
  fresh.first_error = std::move(result_.first_error);
  fresh.tls_first_error = result_.tls_first_error;
  fresh.tls_first_error_ns = result_.tls_first_error_ns;
  fresh.first_response = std::move(result_.first_response);  // the sessions keep no Server header once it is known
  fresh.connections_up_ns = result_.connections_up_ns;        // noted once, when the last connection first opened
  result_ = std::move(fresh);
  from_.reset_at(from_ns);
  intervals_.reset(now_ns);
}

void Recorder::start(TimeNs now_ns) {
  load_.start(now_ns);
  intervals_.start(now_ns, from_.ns());
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
  if (status >= 400) {
    ++named.errors.status;
    named.status_errors.add(status);
  }
  const TimeNs latency_ns = done - t_sched;
  IntervalSnapshot* interval = intervals_.filling();
  record_latency(result_, interval, name, latency_ns, false, 1);
  intervals_.latency(latency_ns);
  // Time to first byte, from the send (a response always has a first byte; a
  // script's later batch responses share their token's first one).
  const TimeNs ttfb_ns = std::min(t_first != 0 ? t_first : done, done) - t_send;
  result_.names.record_ttfb(name, ttfb_ns);
  if (interval != nullptr) interval->ttfb_by_name.record_n(name, ttfb_ns, 1);
  if (service) {
    result_.service.record(done - t_send);
    intervals_.served(done - t_send);
  }
}

void Recorder::succeeded(stats::NameId name, int status, TimeNs t_sched) {
  std::uint64_t& status_errors = result_.counters.errors.status;
  if (!recorded(t_sched) || status_errors == 0) return;
  --status_errors;
  intervals_.status_error_taken_back(status_errors);
  result_.names.unfail_status(name, status);
}

void Recorder::failed(stats::NameId name, TimeNs t_sched, ErrorField error) {
  if (!recorded(t_sched)) return;
  ++(result_.counters.errors.*error);
  ++(result_.names.counts(name).errors.*error);
}

void Recorder::censored(stats::NameId name, TimeNs latency_ns, std::int64_t count) {
  record_latency(result_, intervals_.filling(), name, latency_ns, true, count);
}

void Recorder::count(ErrorField error, TimeNs now_ns, std::uint64_t n) {
  if (from_.holds(now_ns)) result_.counters.errors.*error += n;
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

}  // namespace pacer::engine
