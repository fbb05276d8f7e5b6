// See packed_histogram.h.
#include "stats/packed_histogram.h"

#include "stats/hdr_codec.h"

namespace pacer::stats {

PackedHistogram::PackedHistogram(const Histogram& h)
    : base64_(encode_v2_base64(h)),
      total_count_(h.total_count()),
      min_(h.min()),
      max_(h.max()) {}

Histogram PackedHistogram::unpack() const {
  auto decoded = decode_v2_base64(base64_);  // written by this class: it decodes
  if (!decoded) return Histogram::for_latency_ns();
  (void)decoded->restore_extremes(min_, max_);
  return std::move(*decoded);
}

}  // namespace pacer::stats
