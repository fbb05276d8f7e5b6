// A reader of Prometheus's text exposition format (0.0.4, and OpenMetrics's
// samples, which read the same) for --server-metrics: the samples of the series
// a scrape exposes, with whether each is a counter (shown as a rate) or a gauge.
// The writer is prom/exposition.h; this is its reading side, kept here because
// only the evidence reads scrapes. Pure; any thread; fuzzed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pacer::evidence {

struct PromSample {
  std::string name;      // the metric name, as in the sample line
  std::string series;    // name{labels} as exposed (labels verbatim, sorted as given)
  double value = 0;
  bool is_counter = false;  // TYPE counter, a histogram's or summary's _bucket/_count/_sum, or a _total name
};

// The samples of `text`, in order. Lines that do not parse are skipped (a
// scrape of a half-broken endpoint still shows its good series); `bad_lines`
// counts them.
std::vector<PromSample> parse_prom_text(std::string_view text, std::size_t* bad_lines = nullptr);

}  // namespace pacer::evidence
