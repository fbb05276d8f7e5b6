// Fuzz target: every CLI value parser, one chosen by the input's first byte:
// durations (-d, --timeout), counts (-n) and byte sizes (the input caps), rates (-R N and -R A:B), --stages,
// --slo, --max-error-rate, --shard, --start-at, --streams, --pipeline, port
// numbers, and `pacer serve --listen`. The rest of the input is the value.
//
// Invariants beyond "no crash" (UBSan also catches signed overflow and
// out-of-range float-to-int casts on the way):
//   - every refusal has a message naming the flag;
//   - durations are >= 0, rates finite and > 0 (>= 0 where 0 is allowed: a rate
//     accepted without zero is accepted with it, to the same value);
//   - stages: durations > 0 adding up without overflow, targets finite >= 0;
//   - SLO terms: a percentile inside (0, 100), a limit > 0, the text kept;
//   - an error rate lies in [0, 1]; a shard i/N has 0 <= i < N;
//   - --start-at is never before `now`, and an RFC 3339 time that is accepted
//     names a real calendar date (gmtime gives back the same fields);
//   - streams and pipeline depths stay in their documented ranges; a port
//     number is 0..65535 and reads back as the digits given.
#include <cmath>
#include <ctime>
#include <limits>
#include <string>

#include "cli/gate_options.h"
#include "cli/load_options.h"
#include "cli/protocol_options.h"
#include "cli/serve_options.h"
#include "cli/shard_options.h"
#include "cli/units.h"
#include "fuzz_support.h"

namespace {

using namespace pacer;
using namespace pacer::cli;

constexpr std::string_view kFlag = "--flag";
constexpr std::int64_t kNow = 1'796'040'000'000'000'000;  // 2026-11-30T12:00:00Z, fixed for repeatability

template <typename T>
void check_refusal(const Result<T>& result) {
  if (!result) FUZZ_CHECK(result.error().message.find(kFlag) != std::string::npos);
}

bool finite_at_least(double v, double floor) { return std::isfinite(v) && v >= floor; }

void duration(std::string_view text) {
  const auto r = parse_duration(text, kFlag);
  check_refusal(r);
  if (r) FUZZ_CHECK(*r >= 0);
}

void count(std::string_view text) {
  check_refusal(parse_count(text, kFlag));
  check_refusal(parse_byte_size(text, kFlag));
}

void rate(std::string_view text) {
  const auto strict = parse_rate(text, kFlag, false);
  const auto zero_ok = parse_rate(text, kFlag, true);
  check_refusal(strict);
  check_refusal(zero_ok);
  if (strict) {
    FUZZ_CHECK(std::isfinite(*strict) && *strict > 0);
    FUZZ_CHECK(zero_ok && *zero_ok == *strict);
  }
  if (zero_ok) FUZZ_CHECK(finite_at_least(*zero_ok, 0));
  Config config;
  const auto applied = apply_rate_option(text, kFlag, config);
  check_refusal(applied);
  if (applied) FUZZ_CHECK(finite_at_least(config.rate_per_s, 0) && finite_at_least(config.rate_end_per_s, 0));
}

void stages(std::string_view text) {
  const auto r = parse_stages(text, kFlag);
  check_refusal(r);
  if (!r) return;
  FUZZ_CHECK(!r->empty());
  TimeNs total = 0;
  for (const RateStage& s : *r) {
    FUZZ_CHECK(s.duration_ns > 0);
    FUZZ_CHECK(finite_at_least(s.target_rate_per_s, 0));
    FUZZ_CHECK(s.duration_ns <= std::numeric_limits<TimeNs>::max() - total);
    total += s.duration_ns;
  }
}

void slo(std::string_view text) {
  const auto r = parse_slo(text, kFlag);
  check_refusal(r);
  if (!r) return;
  for (const LatencyGate& g : *r) {
    if (g.statistic == LatencyGate::Statistic::kPercentile) FUZZ_CHECK(g.percentile > 0 && g.percentile < 100);
    FUZZ_CHECK(g.limit_ns > 0);
    FUZZ_CHECK(!g.text.empty());
  }
}

void error_rate(std::string_view text) {
  const auto r = parse_error_rate(text, kFlag);
  check_refusal(r);
  if (r) FUZZ_CHECK(*r >= 0 && *r <= 1);
}

void shard(std::string_view text) {
  Config config;
  const auto r = parse_shard(text, kFlag, config);
  check_refusal(r);
  if (r) FUZZ_CHECK(config.shard_count >= 1 && config.shard_index >= 0 && config.shard_index < config.shard_count);
}

// "YYYY-MM-DDTHH:MM:SS": the fields, or false.
bool rfc3339_fields(std::string_view text, std::tm& out) {
  if (text.size() < 20) return false;
  const auto num = [&](std::size_t at, std::size_t n, int& v) {
    v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      v = v * 10 + (text[i] - '0');
    }
    return true;
  };
  return num(0, 4, out.tm_year) && text[4] == '-' && num(5, 2, out.tm_mon) && text[7] == '-' &&
         num(8, 2, out.tm_mday) && (text[10] == 'T' || text[10] == 't') && num(11, 2, out.tm_hour) &&
         text[13] == ':' && num(14, 2, out.tm_min) && text[16] == ':' && num(17, 2, out.tm_sec);
}

void start_at(std::string_view text) {
  const auto r = parse_start_at(text, kFlag, kNow);
  check_refusal(r);
  if (!r) return;
  FUZZ_CHECK(*r >= kNow);
  std::tm given{};
  if (!rfc3339_fields(text, given) || given.tm_sec == 60) return;  // a leap second may roll over
  const std::time_t seconds = static_cast<std::time_t>(*r / 1'000'000'000);
  std::tm back{};
  FUZZ_CHECK(gmtime_r(&seconds, &back) != nullptr);
  FUZZ_CHECK(back.tm_year + 1900 == given.tm_year && back.tm_mon + 1 == given.tm_mon &&
             back.tm_mday == given.tm_mday && back.tm_hour == given.tm_hour && back.tm_min == given.tm_min &&
             back.tm_sec == given.tm_sec);
}

void protocol(std::string_view text) {
  const auto s = parse_streams(text, kFlag);
  check_refusal(s);
  if (s) FUZZ_CHECK(*s >= 1 && *s <= kMaxStreams);
  const auto p = parse_pipeline(text, kFlag);
  check_refusal(p);
  if (p) FUZZ_CHECK(*p >= 1 && *p <= kMaxPipeline);
}

void port(std::string_view text) {
  const auto p = parse_port_number(text);
  if (!p) return;
  std::size_t zeros = 0;
  while (zeros + 1 < text.size() && text[zeros] == '0') ++zeros;
  FUZZ_CHECK(std::to_string(*p) == text.substr(zeros));
}

void listen(std::string_view text) {
  server::ServeConfig serve;
  check_refusal(parse_listen(text, kFlag, serve));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 11) {
    case 0: duration(text); break;
    case 1: count(text); break;
    case 2: rate(text); break;
    case 3: stages(text); break;
    case 4: slo(text); break;
    case 5: error_rate(text); break;
    case 6: shard(text); break;
    case 7: start_at(text); break;
    case 8: protocol(text); break;
    case 9: port(text); break;
    default: listen(text); break;
  }
  return 0;
}
