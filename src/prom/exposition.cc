// Prometheus text 0.0.4 and OpenMetrics 1.0 writers; see the header.
#include "prom/exposition.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace pacer::prom {

namespace {

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
  }
  return "untyped";
}

// {a="x",b="y"} with `extra` (le) last; "" when there are none.
void append_labels(std::string& out, const Labels& labels, const Label* extra = nullptr) {
  if (labels.empty() && extra == nullptr) return;
  out += '{';
  bool first = true;
  const auto one = [&](const Label& label) {
    if (!first) out += ',';
    first = false;
    out += label.name;
    out += "=\"";
    out += escape_label_value(label.value);
    out += '"';
  };
  for (const Label& label : labels) one(label);
  if (extra != nullptr) one(*extra);
  out += '}';
}

void append_sample(std::string& out, std::string_view name, const Labels& labels, double value,
                   const Label* extra = nullptr) {
  out += name;
  append_labels(out, labels, extra);
  out += ' ';
  out += format_value(value);
  out += '\n';
}

void append_histogram(std::string& out, const Family& family, const HistogramSample& h) {
  const std::string bucket = family.name + "_bucket";
  for (std::size_t i = 0; i < family.bounds_s.size(); ++i) {
    const Label le{"le", format_value(family.bounds_s[i])};
    append_sample(out, bucket, h.labels, static_cast<double>(h.cumulative[i]), &le);
  }
  const Label inf{"le", "+Inf"};
  append_sample(out, bucket, h.labels, static_cast<double>(h.count), &inf);
  append_sample(out, family.name + "_sum", h.labels, h.sum);
  append_sample(out, family.name + "_count", h.labels, static_cast<double>(h.count));
}

void append_samples(std::string& out, const Family& family) {
  if (family.type == MetricType::kHistogram) {
    for (const HistogramSample& h : family.histograms) append_histogram(out, family, h);
    return;
  }
  const std::string name = sample_name(family);
  for (const Sample& s : family.samples) append_sample(out, name, s.labels, s.value);
}

}  // namespace

bool wants_openmetrics(std::string_view accept) {
  std::size_t pos = 0;
  while (pos < accept.size()) {
    const std::size_t comma = std::min(accept.find(',', pos), accept.size());
    std::string_view item = accept.substr(pos, comma - pos);
    pos = comma + 1;
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    constexpr std::string_view kType = "application/openmetrics-text";
    if (item.substr(0, kType.size()) != kType) continue;
    const std::size_t q = item.find("q=");
    if (q == std::string_view::npos) return true;
    // q=0 (or 0.0) refuses the type.
    const std::string weight(item.substr(q + 2, item.find(';', q) - (q + 2)));
    if (std::strtod(weight.c_str(), nullptr) > 0) return true;
  }
  return false;
}

std::string render_text(const std::vector<Family>& families) {
  std::string out;
  for (const Family& family : families) {
    const std::string name = sample_name(family);
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape_help(family.help), name, type_name(family.type));
    append_samples(out, family);
  }
  return out;
}

std::string render_openmetrics(const std::vector<Family>& families) {
  std::string out;
  for (const Family& family : families) {
    out += fmt::format("# TYPE {} {}\n", family.name, type_name(family.type));
    if (!family.unit.empty()) out += fmt::format("# UNIT {} {}\n", family.name, family.unit);
    // OpenMetrics escapes the double quote in HELP too.
    std::string help;
    for (const char c : escape_help(family.help)) help += c == '"' ? std::string("\\\"") : std::string(1, c);
    out += fmt::format("# HELP {} {}\n", family.name, help);
    append_samples(out, family);
  }
  out += "# EOF\n";
  return out;
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

std::string escape_help(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (const char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) return fmt::format("{:.0f}", value);
  return fmt::format("{}", value);
}

bool is_metric_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':') return false;
  }
  return true;
}

bool is_label_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) || name.substr(0, 2) == "__") return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace pacer::prom
