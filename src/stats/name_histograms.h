// One latency histogram per request name (indexed by NameId), made the first
// time a name records: an interval's latency by name (record/interval.h), and
// the sums the controller and the outputs make of them. A name that recorded
// nothing costs one null pointer.
//
// Thread: one owner at a time (a worker fills its interval slot's; the
// controller merges the published slots on the main thread).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "stats/histogram.h"
#include "stats/name_table.h"

namespace pacer::stats {

class NameHistograms {
 public:
  // Before the run: the histograms of ids [0, count), so that recording under
  // a name known then never allocates (but a histogram's first touch of a range).
  void prepare(std::size_t count);
  std::size_t size() const { return histograms_.size(); }

  // A name first seen here (a script's, or a sum's) gets its histogram, once.
  void record_n(NameId id, std::int64_t value_ns, std::int64_t count) { at(id).record_n(value_ns, count); }
  // The histogram of `id`, or nullptr when none was made for it.
  const Histogram* find(NameId id) const { return id < histograms_.size() ? histograms_[id].get() : nullptr; }
  // Adds every name of other (histograms made here as needed).
  void merge(const NameHistograms& other);
  // Adds every name into one histogram (the interval's latency, over the names).
  void merge_into(Histogram& sum) const;
  // Zeroes the counts; what was made stays made.
  void reset();

 private:
  Histogram& at(NameId id);

  std::vector<std::unique_ptr<Histogram>> histograms_;
};

}  // namespace pacer::stats
