// A histogram kept for later at the size of its text: its counts as HdrHistogram
// V2 (zlib, base64: the JSON report's own form) and its exact extremes, which V2
// does not keep. The kept time series holds one per interval and per name (a
// Histogram's chunks are kilobytes each: an hour of intervals would be hundreds
// of megabytes). unpack() gives the Histogram back, exactly. Plain data.
#pragma once

#include <cstdint>
#include <string>

#include "stats/histogram.h"

namespace pacer::stats {

class PackedHistogram {
 public:
  PackedHistogram() = default;  // no samples
  explicit PackedHistogram(const Histogram& h);

  // The histogram (the layout it was packed from), its min and max exact.
  Histogram unpack() const;
  // What the JSON report writes for it (encode_v2_base64's text; "" when default-made:
  // unpack() then gives an empty latency histogram).
  const std::string& base64() const { return base64_; }
  std::int64_t total_count() const { return total_count_; }
  std::int64_t min() const { return min_; }
  std::int64_t max() const { return max_; }
  bool operator==(const PackedHistogram&) const = default;

 private:
  std::string base64_;
  std::int64_t total_count_ = 0;
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
};

}  // namespace pacer::stats
