// Fuzz target: the HdrHistogram V2 decoder (stats/hdr_codec), used on every
// histogram `pacer merge` reads. Byte 0 picks the layer the rest is given to:
// the raw V2 payload, the compressed envelope (zlib inside), or base64 text.
//
// Invariants beyond "no crash" (and no UB: the statistics are computed too):
//   - a decoded histogram has counts >= 0 that add up to its total_count, and
//     mean, stdev and percentiles that are finite and inside [min, max];
//   - a decode that succeeds re-encodes to a payload that decodes to an equal
//     histogram (same layout, same count at every index), whose encoding is the
//     same bytes again (encoding is a fixed point after one round), through
//     every layer (payload, compressed, base64).
#include <cmath>
#include <cstdio>
#include <string>

#include "fuzz_support.h"
#include "stats/hdr_codec.h"

namespace {

using pacer::stats::Histogram;

bool same(const Histogram& a, const Histogram& b) {
  if (a.lowest_discernible() != b.lowest_discernible() || a.highest_trackable() != b.highest_trackable() ||
      a.significant_figures() != b.significant_figures() || a.counts_len() != b.counts_len() ||
      a.total_count() != b.total_count()) {
    return false;
  }
  for (int i = 0; i < a.counts_len(); ++i) {
    if (a.count_at_index(i) != b.count_at_index(i)) return false;
  }
  return a.min() == b.min() && a.max() == b.max();
}

void check_statistics(const Histogram& h) {
  std::int64_t sum = 0;
  for (int i = 0; i < h.counts_len(); ++i) {
    const std::int64_t c = h.count_at_index(i);
    FUZZ_CHECK(c >= 0);
    FUZZ_CHECK(!__builtin_add_overflow(sum, c, &sum));
  }
  FUZZ_CHECK(sum == h.total_count());
  if (sum == 0) return;
  FUZZ_CHECK(h.min() <= h.max());
  FUZZ_CHECK(std::isfinite(h.mean()) && std::isfinite(h.stdev()));
  for (double p : {0.0, 50.0, 99.0, 99.999, 100.0}) {
    const std::int64_t v = h.value_at_percentile(p);
    FUZZ_CHECK(v >= h.lowest_equivalent(h.min()) && v <= h.max());
  }
}

void print(const char* name, const Histogram& h) {
  std::fprintf(stderr, "%s: lowest %lld highest %lld figures %d counts_len %d total %lld min %lld max %lld; counts",
               name, static_cast<long long>(h.lowest_discernible()), static_cast<long long>(h.highest_trackable()),
               h.significant_figures(), h.counts_len(), static_cast<long long>(h.total_count()),
               static_cast<long long>(h.min()), static_cast<long long>(h.max()));
  for (int i = 0; i < h.counts_len(); ++i) {
    if (h.count_at_index(i) != 0) std::fprintf(stderr, " [%d]=%lld", i, static_cast<long long>(h.count_at_index(i)));
  }
  std::fprintf(stderr, "\n");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  pacer::Result<Histogram> decoded = [&] {
    switch (data[0] % 3) {
      case 0: return pacer::stats::decode_v2(input);
      case 1: return pacer::stats::decode_v2_compressed(input);
      default: return pacer::stats::decode_v2_base64(input);
    }
  }();
  if (!decoded) {
    FUZZ_CHECK(!decoded.error().message.empty());
    return 0;
  }
  check_statistics(*decoded);

  const std::string payload = pacer::stats::encode_v2(*decoded);
  const auto again = pacer::stats::decode_v2(payload);
  FUZZ_CHECK(again.ok());
  if (!same(*decoded, *again)) {
    print("decoded", *decoded);
    print("re-decoded", *again);
  }
  FUZZ_CHECK(same(*decoded, *again));
  FUZZ_CHECK(pacer::stats::encode_v2(*again) == payload);

  const auto compressed = pacer::stats::decode_v2_compressed(pacer::stats::encode_v2_compressed(*decoded));
  FUZZ_CHECK(compressed.ok() && same(*decoded, *compressed));
  const auto text = pacer::stats::decode_v2_base64(pacer::stats::encode_v2_base64(*decoded));
  FUZZ_CHECK(text.ok() && same(*decoded, *text));
  return 0;
}
