// ab's report fields (issue 33; docs/output.md, "ab's fields"): the Server
// header of the first response the run recorded, and the document length with
// its length mismatches.
//
// Document length: per request name, the body length (on the wire, before
// --compressed decoding) of the first recorded 2xx response of that name. The
// first worker to record one publishes it in the name's atomic with
// compare-and-swap; every recorded 2xx response is compared with that one
// value, so the mismatch count is exact across workers and costs one relaxed
// load per response (the array is sized by the name table's id limit before the
// run: nothing allocated during it). Mismatches are figures, not errors.
//
// FirstResponse is a worker's (the recorder's, no lock); the controller keeps
// the earliest of them after the join (merge()).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/clock.h"
#include "stats/name_table.h"

namespace pacer::engine {

class DocumentLengths {
 public:
  // name_limit: the name table's id_limit() (every NameId is below it).
  explicit DocumentLengths(std::size_t name_limit);

  // Any worker, per recorded 2xx response: whether its body_bytes differ from
  // its name's document length (the name's first call sets it: false).
  bool differs(stats::NameId name, std::uint64_t body_bytes) {
    if (name >= limit_) return false;
    std::atomic<std::int64_t>& slot = lengths_[name];
    const auto bytes = static_cast<std::int64_t>(body_bytes);
    std::int64_t known = slot.load(std::memory_order_relaxed);
    if (known < 0 && slot.compare_exchange_strong(known, bytes, std::memory_order_relaxed)) return false;
    return known != bytes;  // a lost race left the winner's value in `known`
  }
  // After the join: the name's document length, nullopt when it had no 2xx response.
  std::optional<std::uint64_t> of(stats::NameId name) const;

 private:
  std::size_t limit_;
  std::unique_ptr<std::atomic<std::int64_t>[]> lengths_;  // -1: none yet
};

// A worker's first recorded response (its Server header) and first recorded
// 2xx response (its name, whose document length the report prints).
struct FirstResponse {
  TimeNs response_ns = -1;  // when the first recorded response ended (-1: none)
  std::string server;       // its Server header ("" when it had none)
  TimeNs document_ns = -1;  // when the first recorded 2xx response ended (-1: none)
  stats::NameId document_name = 0;

  // The controller, after the join: keeps the earlier of each pair.
  void merge(const FirstResponse& other);
};

}  // namespace pacer::engine
