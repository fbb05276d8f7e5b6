// The JSON report's "timeseries" entries read back into SeriesPoints: the
// inverse of series_point_json (report/series_json.h) for everything it writes.
// Internal to report/json_reader.cc: every read throws FieldError naming the
// field (report/json_field.h), caught once by read_json_report. Main thread.
//
// What does not come back exactly: a histogram's min in reports older than
// latency_ns's min (V2 keeps buckets: the summary's exact min and max are restored
// where written); start_time keeps microseconds (start_unix_ns reads back to the
// microsecond); backlog and schedule_lag_ns are written only
// with a target (0 otherwise); scheduled is not written (0); the endpoints come
// back in name order (the reader's JSON objects are sorted), their latency only
// where the histogram was written; and a worker's load is written as its busy
// share, CPU, run-queue time and switches, without its wall and waited times:
// those are made up so that busy() gives the written share to within a
// nanosecond of the interval's length (evidence/worker_load.h).
#pragma once

#include "evidence/samples.h"
#include "report/json_field.h"
#include "report/series_point.h"

namespace pacer::report {

// One entry (an object). Required: interval, start_s, start_time, duration_s,
// sent, completed, errors and histogram (every report with a time series has
// them); the rest is optional, absent from older reports.
SeriesPoint read_series_point(const Field& entry);

// The entry's "client" object into the point's workers and evidence (the
// evidence is there when the object has verdicts: a sampled interval's).
void read_interval_client(const Field& client, SeriesPoint& point);
// The entry's "server" object into the evidence's pids and scrapes.
void read_interval_server(const Field& server, evidence::IntervalEvidence& evidence);

// The report's own "client" and "server" objects (evidence/evidence_json.h's
// run_client_json and run_server_json), when present, into the run's evidence. A
// worker's wall time and CPU come back exactly, its waited time made up from its
// busy share (busy() gives it again); the peak sample's CPU time is not written.
void read_run_evidence(const Field& root, evidence::RunEvidence& run);

}  // namespace pacer::report
