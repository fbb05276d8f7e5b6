#include "cli/gate_options.h"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "cli/units.h"

namespace pacer::cli {

namespace {

bool is_decimal(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789.") == std::string_view::npos &&
         text.find('.') == text.rfind('.') && text != ".";
}

Result<LatencyGate> parse_gate(std::string_view term, std::string_view flag) {
  LatencyGate gate;
  gate.text = std::string(term);
  const std::size_t op = term.find('<');
  if (op == std::string_view::npos) {
    return bad_argument(fmt::format("{}: '{}' is not STATISTIC<LIMIT (e.g. p99<250ms, mean<20ms, max<2s)", flag, term));
  }
  const std::string_view name = term.substr(0, op);
  std::string_view limit = term.substr(op + 1);
  if (!limit.empty() && limit.front() == '=') {
    gate.inclusive = true;
    limit.remove_prefix(1);
  }
  if (name == "mean" || name == "avg") {
    gate.statistic = LatencyGate::Statistic::kMean;
  } else if (name == "max") {
    gate.statistic = LatencyGate::Statistic::kMax;
  } else if (name.size() > 1 && name.front() == 'p' && is_decimal(name.substr(1))) {
    gate.percentile = std::strtod(std::string(name.substr(1)).c_str(), nullptr);
    if (!(gate.percentile > 0 && gate.percentile < 100)) {
      return bad_argument(fmt::format("{}: percentile in '{}' must be between 0 and 100", flag, term));
    }
  } else {
    return bad_argument(
        fmt::format("{}: unknown statistic '{}' in '{}' (use pNN such as p99 or p99.9, mean, or max)", flag, name, term));
  }
  auto ns = parse_duration(limit, flag);
  if (!ns) return ns.error();
  if (*ns <= 0) return bad_argument(fmt::format("{}: the limit in '{}' must be greater than 0", flag, term));
  gate.limit_ns = *ns;
  return gate;
}

}  // namespace

Result<std::vector<LatencyGate>> parse_slo(std::string_view text, std::string_view flag) {
  std::vector<LatencyGate> gates;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view term = text.substr(start, comma - start);
    while (!term.empty() && term.front() == ' ') term.remove_prefix(1);
    while (!term.empty() && term.back() == ' ') term.remove_suffix(1);
    auto gate = parse_gate(term, flag);
    if (!gate) return gate.error();
    gates.push_back(std::move(*gate));
    start = comma + 1;
  }
  return gates;
}

Result<double> parse_error_rate(std::string_view text, std::string_view flag) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string_view digits = percent ? text.substr(0, text.size() - 1) : text;
  if (!is_decimal(digits)) {
    return bad_argument(fmt::format("{}: '{}' is not an error rate (e.g. 1% or 0.01)", flag, text));
  }
  const double value = std::strtod(std::string(digits).c_str(), nullptr) / (percent ? 100.0 : 1.0);
  if (value > 1.0) {
    return bad_argument(fmt::format("{}: error rate {} is above 100%", flag, text));
  }
  return value;
}

}  // namespace pacer::cli
