#include "ui/sparkline.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace pacer::ui {

namespace {

constexpr std::array<const char*, 8> kBlocks = {"\u2581", "\u2582", "\u2583", "\u2584",
                                                "\u2585", "\u2586", "\u2587", "\u2588"};
constexpr std::array<char, 8> kAscii = {'.', ':', '-', '=', '+', '*', '#', '@'};

// Column c of `columns` covers points [first, last) of `points`.
template <typename Fold>
std::vector<double> resample(const std::vector<HistoryPoint>& history, std::size_t columns, Fold fold) {
  std::vector<double> out;
  if (columns == 0 || history.empty()) return out;
  const std::size_t n = std::min(columns, history.size());
  out.reserve(n);
  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t first = c * history.size() / n;
    const std::size_t last = (c + 1) * history.size() / n;
    out.push_back(fold(history.begin() + static_cast<std::ptrdiff_t>(first),
                       history.begin() + static_cast<std::ptrdiff_t>(last)));
  }
  return out;
}

}  // namespace

std::string sparkline(const std::vector<double>& values, bool unicode) {
  const double top = values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
  std::string out;
  for (double v : values) {
    if (v <= 0 || top <= 0) {
      out += ' ';
      continue;
    }
    const int level = std::clamp(static_cast<int>(std::ceil(v / top * 8.0)), 1, 8) - 1;
    if (unicode) {
      out += kBlocks[static_cast<std::size_t>(level)];
    } else {
      out += kAscii[static_cast<std::size_t>(level)];
    }
  }
  return out;
}

std::vector<double> throughput_series(const std::vector<HistoryPoint>& history, std::size_t columns) {
  return resample(history, columns, [](auto first, auto last) {
    std::uint64_t completed = 0;
    TimeNs ns = 0;
    for (auto it = first; it != last; ++it) {
      completed += it->completed;
      ns += it->duration_ns;
    }
    return ns > 0 ? static_cast<double>(completed) * 1e9 / static_cast<double>(ns) : 0.0;
  });
}

std::vector<double> p99_series(const std::vector<HistoryPoint>& history, std::size_t columns) {
  return resample(history, columns, [](auto first, auto last) {
    std::int64_t worst = 0;
    // A request still in flight at an interval's end will take at least its age:
    // during a stall the few responses that complete are fast, but this is not.
    for (auto it = first; it != last; ++it) worst = std::max({worst, it->p99_ns, it->oldest_in_flight_ns});
    return static_cast<double>(worst);
  });
}

}  // namespace pacer::ui
