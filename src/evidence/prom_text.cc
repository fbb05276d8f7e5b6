// See prom_text.h.
#include "evidence/prom_text.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "prom/exposition.h"

namespace pacer::evidence {

namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// "+Inf", "-Inf", "NaN" and decimal or exponent forms.
bool parse_value(std::string_view s, double& out) {
  if (s == "+Inf" || s == "Inf") {
    out = HUGE_VAL;
    return true;
  }
  if (s == "-Inf") {
    out = -HUGE_VAL;
    return true;
  }
  if (s == "NaN") {
    out = std::nan("");
    return true;
  }
  const std::string copy(s);
  char* end = nullptr;
  out = std::strtod(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size();
}

// The end of a {...} label set starting at `open`, quotes and escapes honoured;
// npos when unterminated.
std::size_t labels_end(std::string_view line, std::size_t open) {
  bool quoted = false;
  for (std::size_t i = open + 1; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '\\') {
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && c == '}') {
      return i;
    }
  }
  return std::string_view::npos;
}

bool is_label_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_label_char(char c) { return is_label_start(c) || (c >= '0' && c <= '9'); }

// The text between a sample's braces: `name="value"` pairs, comma-separated (a
// trailing comma allowed), each name once, as Prometheus's parser requires.
bool labels_valid(std::string_view labels) {
  std::vector<std::string_view> names;
  std::size_t i = 0;
  const auto skip_spaces = [&] {
    while (i < labels.size() && labels[i] == ' ') ++i;
  };
  skip_spaces();
  while (i < labels.size()) {
    const std::size_t start = i;
    if (!is_label_start(labels[i])) return false;
    while (i < labels.size() && is_label_char(labels[i])) ++i;
    const std::string_view name = labels.substr(start, i - start);
    for (std::string_view seen : names) {
      if (seen == name) return false;
    }
    names.push_back(name);
    skip_spaces();
    if (i >= labels.size() || labels[i] != '=') return false;
    ++i;
    skip_spaces();
    if (i >= labels.size() || labels[i] != '"') return false;
    for (++i; i < labels.size() && labels[i] != '"'; ++i) {
      if (labels[i] == '\\') ++i;
    }
    if (i >= labels.size()) return false;
    ++i;
    skip_spaces();
    if (i < labels.size() && labels[i] != ',') return false;
    if (i < labels.size()) ++i;
    skip_spaces();
  }
  return true;
}

// What may follow a sample's value: nothing, or a timestamp (Prometheus's integer
// milliseconds, OpenMetrics's decimal seconds), then perhaps an OpenMetrics exemplar.
bool tail_valid(std::string_view tail) {
  while (!tail.empty() && tail.front() == ' ') tail.remove_prefix(1);
  if (tail.empty() || tail.starts_with("# ")) return true;
  const std::size_t end = tail.find(' ');
  const std::string_view stamp = tail.substr(0, end);
  const std::string_view digits = stamp.starts_with('-') ? stamp.substr(1) : stamp;
  const std::size_t dot = digits.find('.');
  const std::string_view whole = digits.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view("0") : digits.substr(dot + 1);
  const auto all_digits = [](std::string_view t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!all_digits(whole) || !all_digits(fraction)) return false;
  std::string_view rest = end == std::string_view::npos ? std::string_view() : tail.substr(end);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest.empty() || rest.starts_with("# ");
}

}  // namespace

std::vector<PromSample> parse_prom_text(std::string_view text, std::size_t* bad_lines) {
  std::vector<PromSample> out;
  std::unordered_map<std::string, std::string> types;  // family name -> TYPE
  std::size_t bad = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] == '#') {
      // "# TYPE name counter"
      if (line.rfind("# TYPE ", 0) == 0) {
        const std::string_view rest = line.substr(7);
        const std::size_t space = rest.find(' ');
        if (space != std::string_view::npos) types[std::string(rest.substr(0, space))] = std::string(rest.substr(space + 1));
      }
      continue;
    }
    std::size_t name_end = 0;
    while (name_end < line.size() && line[name_end] != '{' && line[name_end] != ' ') ++name_end;
    const std::string_view name = line.substr(0, name_end);
    std::size_t series_end = name_end;
    if (name_end < line.size() && line[name_end] == '{') {
      const std::size_t close = labels_end(line, name_end);
      if (close == std::string_view::npos || !labels_valid(line.substr(name_end + 1, close - name_end - 1))) {
        ++bad;
        continue;
      }
      series_end = close + 1;
    }
    std::size_t value_start = series_end;
    while (value_start < line.size() && line[value_start] == ' ') ++value_start;
    std::size_t value_end = value_start;
    while (value_end < line.size() && line[value_end] != ' ') ++value_end;
    double value = 0;
    if (!prom::is_metric_name(name) || !parse_value(line.substr(value_start, value_end - value_start), value) ||
        !tail_valid(line.substr(value_end))) {
      ++bad;
      continue;
    }
    PromSample s;
    s.name = std::string(name);
    s.series = std::string(line.substr(0, series_end));
    s.value = value;
    // The family a sample belongs to: its name, or its name less a histogram's or summary's suffix.
    for (std::string_view suffix : {"", "_total", "_bucket", "_count", "_sum", "_created"}) {
      if (!ends_with(name, suffix)) continue;
      const auto it = types.find(std::string(name.substr(0, name.size() - suffix.size())));
      if (it == types.end()) continue;
      const std::string& type = it->second;
      s.is_counter = type == "counter" || ((type == "histogram" || type == "summary") && !suffix.empty());
      break;
    }
    if (!s.is_counter && ends_with(name, "_total") && types.find(s.name) == types.end()) s.is_counter = true;
    out.push_back(std::move(s));
  }
  if (bad_lines != nullptr) *bad_lines = bad;
  return out;
}

}  // namespace pacer::evidence
