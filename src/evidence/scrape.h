// --server-metrics: scrapes Prometheus text-format endpoints once per interval
// on the main thread, between intervals, with libcurl (loaded on first use,
// prom/curl_api.h), each scrape bounded in time (--server-metrics-timeout) and
// size (kMaxScrapeBytes). Counters become per-second rates between consecutive
// successful scrapes; gauges are kept. A failed scrape is marked with its error,
// never turned into zeros; a target that goes away is marked each interval and
// the run goes on. Main thread only.
#pragma once

#include <cstdint>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "evidence/prom_text.h"
#include "evidence/samples.h"

namespace pacer::evidence {

inline constexpr std::size_t kMaxScrapeBytes = 8 * 1024 * 1024;
inline constexpr std::size_t kMaxSeriesPerTarget = 64;  // the series shown per target (the first chosen)

class Scraper {
 public:
  // selectors: --server-metric NAME|REGEX (a metric name matches when the whole
  // name matches one); empty: the standard process_* series.
  Scraper(std::vector<std::string> urls, const std::vector<std::string>& selectors, TimeNs timeout_ns);

  // Scrapes every target now; the samples for an interval ending now.
  std::vector<ScrapeSample> scrape(TimeNs now_ns);

 private:
  struct Target {
    std::string url;
    std::map<std::string, double> last_counters;  // series -> value at the last good scrape
    TimeNs last_ok_ns = 0;
  };
  bool chosen(const std::string& name) const;
  ScrapeSample scrape_one(Target& target, TimeNs now_ns);

  std::vector<Target> targets_;
  std::vector<std::regex> selectors_;
  TimeNs timeout_ns_;
};

// Checks a --server-metric selector (a metric name or an ECMAScript regex);
// the error says what is wrong with it.
std::string selector_error(const std::string& selector);

}  // namespace pacer::evidence
