// Per-name statistics (the report's Endpoints): what each worker records for
// each request name, indexed by NameId (stats/name_table.h), without a lock and,
// for a name known before the run, without allocating.
//
// What a name's row counts: the requests that were sent under it and what became
// of them. Failures before a request had a name (a connect that failed, an
// open-model arrival that never left the backlog: connect, backlog, unsent,
// deadline) are only in the run's totals.
//
// Extending it (helpers adding a per-name figure): add the field to NameRecord
// (a histogram as a lazily made unique_ptr, like latency), record it through a
// NameRecorder method, and carry it in report::EndpointReport.
//
// Thread: a NameRecorder belongs to one worker.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stats/counters.h"
#include "stats/histogram.h"
#include "stats/name_table.h"
#include "stats/status_errors.h"

namespace pacer::stats {

struct NameCounts {
  std::uint64_t requests_sent = 0;  // recorded requests written under this name
  std::uint64_t responses = 0;      // complete responses (any status)
  std::uint64_t non_2xx_3xx = 0;    // responses whose status is outside 200-399
  ErrorCounts errors;               // by class; `status` counts the responses >= 400
  StatusErrors status_errors;       // ...those by code (their total is errors.status)
  // The responses' body bytes (as decoded), for the mean body length (Locust's
  // Average Content Size). Not in kFields: reports older than it have none.
  std::uint64_t body_bytes = 0;

  // Every plain count, by its name in the JSON report's endpoints[].
  static constexpr std::array<CountField<NameCounts>, 3> kFields{{
      {"requests_sent", &NameCounts::requests_sent},
      {"responses", &NameCounts::responses},
      {"non_2xx_3xx", &NameCounts::non_2xx_3xx},
  }};

  void merge(const NameCounts& o) {
    for (const auto& f : kFields) this->*f.member += o.*f.member;
    body_bytes += o.body_bytes;
    errors.merge(o.errors);
    status_errors.merge(o.status_errors);
  }
  // Checked sums for counts read from files; empty when merged, else the field
  // that would overflow (nothing changes then).
  std::string merge_checked(const NameCounts& o);
  // Requests that ended without a response (every error class but `status`).
  std::uint64_t failures() const { return errors.socket_total(); }
};

// Counts of one name in one interval (the NDJSON time series).
struct NameIntervalCounts {
  std::uint64_t completed = 0;
  std::uint64_t errors = 0;  // every class, `status` included
  std::uint64_t failed = 0;  // requests that ended without a response (errors but `status`)

  void merge(const NameIntervalCounts& o) {
    completed += o.completed;
    errors += o.errors;
    failed += o.failed;
  }
};

struct NameRecord {
  NameCounts counts;
  std::unique_ptr<Histogram> latency;  // t_done - t_sched, timeouts at their censored value
  std::unique_ptr<Histogram> ttfb;     // first response byte - t_send (responses only)
};

class NameRecorder {
 public:
  // id_limit: NameTable::id_limit(); no id at or past it is ever recorded.
  explicit NameRecorder(std::size_t id_limit = 0) : id_limit_(id_limit) {}

  // Before the run: records for ids [0, count), the names known now, with their
  // histograms, so that recording under them never allocates (but a histogram's
  // first touch of a range). Ids past them (a script's names, "(other)") get
  // their record on first use, once per name.
  void prepare(std::size_t count);
  // Ids with a record: 0..size()-1.
  std::size_t size() const { return records_.size(); }

  NameCounts& counts(NameId id) { return record(id).counts; }
  // A name first seen during the run (a script's) gets its histogram here, once.
  void record_latency(NameId id, std::int64_t latency_ns, std::int64_t count = 1) {
    latency_histogram(record(id).latency).record_n(latency_ns, count);
  }
  // Time to first byte, as record_latency.
  void record_ttfb(NameId id, std::int64_t ttfb_ns) {
    latency_histogram(record(id).ttfb).record(ttfb_ns);
  }
  // The record of `id`, or nullptr if nothing was recorded under it. After the
  // run, the report takes its histograms from here.
  NameRecord* find(NameId id) { return id < records_.size() ? &records_[id] : nullptr; }

  // u:success() on a recorded response of `id` with a status >= 400: it is no
  // `status` error after all. The interval it was counted in, if already
  // taken, keeps it (the current one's count never goes below zero).
  void unfail_status(NameId id, int status);

  // At an interval's close: each name's counts since the last call, into out
  // (grown to size() when names were added since: otherwise no allocation).
  void take_interval(std::vector<NameIntervalCounts>& out);

 private:
  NameRecord& record(NameId id) {
    if (id >= records_.size()) [[unlikely]] grow(id);
    return records_[id];
  }
  void grow(NameId id);  // room for ids up to `id` (< id_limit_)

  std::size_t id_limit_;
  std::vector<NameRecord> records_;
  std::vector<NameIntervalCounts> at_interval_start_;
};

}  // namespace pacer::stats
