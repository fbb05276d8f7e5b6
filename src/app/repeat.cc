// See repeat.h.
#include "app/repeat.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "html/report_files.h"
#include "report/json.h"
#include "report/rank_test.h"
#include "report/units.h"

namespace pacer::app {

namespace {

using json = nlohmann::ordered_json;

double run_figure(const report::RunReport& r, const std::string& figure) {
  if (figure == "rps") return r.measured_ns > 0 ? static_cast<double>(r.counters.responses) * 1e9 / static_cast<double>(r.measured_ns) : 0;
  if (figure == "errors") return static_cast<double>(r.counters.errors.socket_total() + r.counters.errors.status);
  const double pct = figure == "p50" ? 50 : figure == "p99" ? 99 : 99.9;
  return r.latency.total_count() > 0 ? static_cast<double>(r.latency.value_at_percentile(pct)) : 0;
}

std::string format_figure(const RepeatFigure& f, double v) {
  if (f.figure == "rps") return fmt::format("{:.2f}", v);
  if (f.figure == "errors") return fmt::format("{:.0f}", v);
  return report::format_time_ns(v);
}

}  // namespace

std::vector<RepeatFigure> repeat_figures(const std::vector<report::RunReport>& runs) {
  std::vector<RepeatFigure> out;
  for (const auto& [figure, label] : {std::pair{"rps", "requests/s"}, std::pair{"p50", "latency p50"},
                                      std::pair{"p99", "latency p99"}, std::pair{"p99.9", "latency p99.9"},
                                      std::pair{"errors", "errors"}}) {
    RepeatFigure f{figure, label, {}, 0, 0, 0, 0};
    for (const report::RunReport& r : runs) f.values.push_back(run_figure(r, f.figure));
    if (!f.values.empty()) {
      f.median = report::median(f.values);
      f.min = *std::min_element(f.values.begin(), f.values.end());
      f.max = *std::max_element(f.values.begin(), f.values.end());
      f.spread = f.median != 0 ? (f.max - f.min) / f.median : 0;
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string render_repeat_text(const std::vector<RepeatFigure>& figures, std::size_t runs, TimeNs pause_ns) {
  std::string out = fmt::format("\nRepeat:       {} runs{}; the median of each figure over them, and its spread "
                                "((max - min) / median)\n",
                                runs, pause_ns > 0 ? fmt::format(", {} apart", report::format_duration_short(pause_ns)) : "");
  out += fmt::format("  {:<15} {:>12} {:>12} {:>12} {:>8}   {}\n", "figure", "median", "min", "max", "spread", "runs");
  for (const RepeatFigure& f : figures) {
    std::string each;
    for (double v : f.values) each += (each.empty() ? "" : ", ") + format_figure(f, v);
    out += fmt::format("  {:<15} {:>12} {:>12} {:>12} {:>7.1f}%   {}\n", f.label, format_figure(f, f.median),
                       format_figure(f, f.min), format_figure(f, f.max), f.spread * 100, each);
  }
  return out;
}

std::string render_repeat_json(const std::vector<report::RunReport>& runs, const std::vector<RepeatFigure>& figures,
                               TimeNs pause_ns) {
  json run_docs = json::array();
  for (const report::RunReport& run : runs) run_docs.push_back(report::json_document(run));
  json summary = json::object();
  for (const RepeatFigure& f : figures) {
    summary[f.figure] = {{"median", f.median}, {"min", f.min}, {"max", f.max}, {"spread", f.spread}, {"values", f.values}};
  }
  json out = {{"schema", "pacer-repeat"},
              {"version", 1},
              {"runs_count", runs.size()},
              {"repeat_pause_s", static_cast<double>(pause_ns) / 1e9},
              {"summary", std::move(summary)},
              {"runs", std::move(run_docs)}};
  return out.dump(2) + "\n";
}

ExitCode run_repeated(const Config& config, const RunOne& run_one, const std::function<bool()>& stopped) {
  const int n = config.evidence.repeat;
  // Each run reports as usual, but its text goes to stderr when stdout is the
  // JSON's; the files (-o, --html, --csv, --timeseries) are the series'.
  Config each = config;
  each.output_path.clear();
  each.html_path.clear();
  each.csv_prefix.clear();
  each.hgrm_path.clear();
  each.json_format = false;
  std::FILE* text_out = config.stdout_is_data() ? stderr : stdout;
  std::vector<report::RunReport> runs;
  ExitCode worst = ExitCode::kOk;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && config.evidence.repeat_pause_ns > 0) {
      const TimeNs until = monotonic_now_ns() + config.evidence.repeat_pause_ns;
      while (!stopped() && monotonic_now_ns() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (stopped()) break;
    std::fprintf(text_out, "%sRun %d of %d\n", i == 0 ? "" : "\n", i + 1, n);
    std::fflush(text_out);
    report::RunReport kept;
    const ExitCode code = run_one(each, &kept);
    if (code == ExitCode::kSigint || code == ExitCode::kSigterm) return code;
    if (code == ExitCode::kRunFailed || code == ExitCode::kBadArguments) return code;  // the series is not comparable
    if (code == ExitCode::kGateFailed) worst = code;
    runs.push_back(std::move(kept));
  }
  const std::vector<RepeatFigure> figures = repeat_figures(runs);
  const std::string text = render_repeat_text(figures, runs.size(), config.evidence.repeat_pause_ns);
  const std::string repeat_json = render_repeat_json(runs, figures, config.evidence.repeat_pause_ns);
  if (config.json_format && config.output_path.empty()) {
    std::fputs(text.c_str(), stderr);
    std::fputs(repeat_json.c_str(), stdout);
  } else {
    std::fputs(text.c_str(), text_out);
  }
  std::fflush(nullptr);
  if (!config.output_path.empty()) {
    if (Status s = write_output_file("-o", config.output_path, config.json_format ? repeat_json : text); !s) {
      std::fprintf(stderr, "pacer: %s\n", s.error().message.c_str());
      return ExitCode::kRunFailed;
    }
  }
  if (!config.html_path.empty()) {
    if (Status s = html::write_repeat_page(repeat_json, config.html_path); !s) {
      std::fprintf(stderr, "pacer: %s\n", s.error().message.c_str());
      return ExitCode::kRunFailed;
    }
  }
  return worst;
}

}  // namespace pacer::app
