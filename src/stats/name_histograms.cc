// See name_histograms.h.
#include "stats/name_histograms.h"

#include <algorithm>

namespace pacer::stats {

void NameHistograms::prepare(std::size_t count) {
  if (histograms_.size() < count) histograms_.resize(count);
  for (std::size_t id = 0; id < count; ++id) {
    latency_histogram(histograms_[id]);
  }
}

Histogram& NameHistograms::at(NameId id) {
  if (id >= histograms_.size()) [[unlikely]] {
    // Doubling: a script adding names one by one moves the pointers O(log n) times.
    histograms_.resize(std::max<std::size_t>(std::size_t{id} + 1, 2 * histograms_.size()));
  }
  return latency_histogram(histograms_[id]);
}

void NameHistograms::merge(const NameHistograms& other) {
  for (std::size_t id = 0; id < other.histograms_.size(); ++id) {
    const Histogram* h = other.histograms_[id].get();
    if (h != nullptr && h->total_count() > 0) at(static_cast<NameId>(id)).merge(*h);
  }
}

void NameHistograms::merge_into(Histogram& sum) const {
  for (const auto& h : histograms_) {
    if (h && h->total_count() > 0) sum.merge(*h);
  }
}

void NameHistograms::reset() {
  for (const auto& h : histograms_) {
    if (h && h->total_count() > 0) h->reset();
  }
}

}  // namespace pacer::stats
