// See scrape.h.
#include "evidence/scrape.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "prom/curl_api.h"

namespace pacer::evidence {

namespace {

struct Body {
  std::string bytes;
  bool too_big = false;
};

std::size_t keep_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::size_t n = size * count;
  if (body->bytes.size() + n > kMaxScrapeBytes) {
    body->too_big = true;
    return 0;  // curl aborts the transfer
  }
  body->bytes.append(data, n);
  return n;
}

std::regex compile(const std::string& selector) {
  return std::regex(selector, std::regex::ECMAScript | std::regex::optimize);
}

}  // namespace

std::string selector_error(const std::string& selector) {
  if (selector.empty()) return "empty";
  try {
    (void)compile(selector);
  } catch (const std::regex_error& e) {
    return fmt::format("not a regular expression: {}", e.what());
  }
  return "";
}

Scraper::Scraper(std::vector<std::string> urls, const std::vector<std::string>& selectors, TimeNs timeout_ns)
    : timeout_ns_(timeout_ns) {
  for (std::string& url : urls) targets_.push_back(Target{std::move(url), {}, 0});
  for (const std::string& s : selectors) selectors_.push_back(compile(s));  // checked by the option's parser
  if (selectors_.empty()) selectors_.push_back(compile("process_cpu_seconds_total|process_resident_memory_bytes|process_open_fds"));
}

bool Scraper::chosen(const std::string& name) const {
  return std::any_of(selectors_.begin(), selectors_.end(), [&](const std::regex& r) { return std::regex_match(name, r); });
}

std::vector<ScrapeSample> Scraper::scrape(TimeNs now_ns) {
  std::vector<ScrapeSample> out;
  for (Target& t : targets_) out.push_back(scrape_one(t, now_ns));
  return out;
}

ScrapeSample Scraper::scrape_one(Target& target, TimeNs now_ns) {
  ScrapeSample out;
  out.url = target.url;
  std::string why;
  const prom::CurlApi* api = prom::curl_api(&why);
  if (api == nullptr) {
    out.error = why;
    return out;
  }
  std::unique_ptr<CURL, void (*)(CURL*)> curl(api->easy_init(), api->easy_cleanup);
  if (!curl) {
    out.error = "curl_easy_init failed";
    return out;
  }
  Body body;
  api->easy_setopt(curl.get(), CURLOPT_URL, target.url.c_str());
  api->easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  api->easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<TimeNs>(timeout_ns_ / kNsPerMs, 1)));
  api->easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &keep_body);
  api->easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  api->easy_setopt(curl.get(), CURLOPT_ACCEPT_ENCODING, "");
  api->easy_setopt(curl.get(), CURLOPT_USERAGENT, "pacer-server-metrics");
  const TimeNs started = monotonic_now_ns();
  const CURLcode code = api->easy_perform(curl.get());
  out.took_ns = monotonic_now_ns() - started;
  long status = 0;
  api->easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (body.too_big) {
    out.error = fmt::format("the response passed {} MiB", kMaxScrapeBytes >> 20);
  } else if (code != CURLE_OK) {
    out.error = api->easy_strerror(code);
  } else if (status != 200) {
    out.error = fmt::format("HTTP status {}", status);
  }
  if (!out.ok()) return out;
  const std::vector<PromSample> samples = parse_prom_text(body.bytes);
  const double seconds = target.last_ok_ns > 0 ? static_cast<double>(now_ns - target.last_ok_ns) / 1e9 : 0;
  std::map<std::string, double> counters;
  for (const PromSample& s : samples) {
    if (!chosen(s.name)) continue;
    MetricValue v{s.series, s.is_counter, std::nullopt};
    if (s.is_counter) {
      counters[s.series] = s.value;
      const auto last = target.last_counters.find(s.series);
      // A counter that went down was reset (the server restarted): no rate across it.
      if (last != target.last_counters.end() && seconds > 0 && s.value >= last->second) {
        v.value = (s.value - last->second) / seconds;
      }
    } else {
      v.value = s.value;
    }
    if (out.values.size() < kMaxSeriesPerTarget) out.values.push_back(std::move(v));
  }
  target.last_counters = std::move(counters);
  target.last_ok_ns = now_ns;
  return out;
}

}  // namespace pacer::evidence
