// What a worker's recorder keeps of its connections: how many connects and TLS
// handshakes (and resumptions) there were, how long each connect, handshake and
// proxy tunnel took (after the warm-up), when every connection had opened once,
// and the first failure's text (a connection's, or a request's when its error
// class alone would not say enough). Per connection, not per request; one worker
// thread.
#pragma once

#include <algorithm>

#include "core/clock.h"
#include "engine/record/interval_writer.h"
#include "engine/run_plan.h"

namespace pacer::net {
class TlsStream;
}

namespace pacer::engine {

// From when a worker records: the warm-up's end (SharedRun::record_from_ns, set
// when the run starts) or, later, the last statistics reset's time.
class RecordFrom {
 public:
  explicit RecordFrom(const TimeNs& warmup_end_ns) : warmup_end_ns_(warmup_end_ns) {}
  TimeNs ns() const { return std::max(warmup_end_ns_, reset_ns_); }
  bool holds(TimeNs t) const { return t >= ns(); }
  void reset_at(TimeNs ns) { reset_ns_ = ns; }

 private:
  const TimeNs& warmup_end_ns_;
  TimeNs reset_ns_ = 0;  // the last statistics reset (0: none)
};

class ConnectionRecord {
 public:
  // result, from, intervals: the recorder's.
  ConnectionRecord(WorkerResult& result, const RecordFrom& from, const IntervalWriter& intervals)
      : result_(result), from_(from), intervals_(intervals) {}

  // A connection's TCP connect took took_ns (-1: not measured, as QUIC's, whose
  // handshake is its connect); its TLS or QUIC handshake took took_ns.
  void connected(TimeNs now_ns, TimeNs took_ns);
  void handshaken(TimeNs now_ns, TimeNs took_ns, bool resumed);
  // Every connection of the worker has opened once (the connect burst is over).
  void all_connected(TimeNs now_ns) { result_.connections_up_ns = now_ns; }
  // A proxy's CONNECT tunnel took took_ns to open (issue 33).
  void tunneled(TimeNs now_ns, TimeNs took_ns);
  // The first failure's text (err's strerror appended when not 0).
  void note_error(int err, const char* what);
  bool has_first_error() const { return !result_.first_error.empty(); }
  // The first TLS failure: `reason`, or (null) the stream's own description.
  void note_tls_failure(TimeNs now_ns, const char* reason, const net::TlsStream& tls);

 private:
  WorkerResult& result_;
  const RecordFrom& from_;
  const IntervalWriter& intervals_;
};

}  // namespace pacer::engine
