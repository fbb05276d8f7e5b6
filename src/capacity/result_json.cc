#include "capacity/result_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "capacity/objective.h"
#include "report/json.h"
#include "report/json_field.h"
#include "report/json_reader.h"

namespace pacer::capacity {

namespace {

using ojson = nlohmann::ordered_json;

ojson optional_rate(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }

ojson term_json(const ObjectiveTerm& t) {
  switch (t.figure) {
    case ObjectiveTerm::Figure::kLatency: {
      const LatencyGate& g = t.latency;
      const std::string figure = g.statistic == LatencyGate::Statistic::kMean  ? "mean"
                                 : g.statistic == LatencyGate::Statistic::kMax ? "max"
                                                                               : fmt::format("p{:g}", g.percentile);
      return {{"figure", figure}, {"limit", g.limit_ns}, {"unit", "ns"}, {"inclusive", g.inclusive}, {"text", t.text}};
    }
    case ObjectiveTerm::Figure::kErrors:
      return {{"figure", "errors"}, {"limit", t.limit}, {"unit", "fraction"}, {"inclusive", t.inclusive}, {"text", t.text}};
    case ObjectiveTerm::Figure::kServerCpu:
      return {{"figure", "server_cpu"}, {"limit", t.limit}, {"unit", "cpus"}, {"inclusive", t.inclusive}, {"text", t.text}};
  }
  return {};
}

Verdict read_verdict(const report::Field& f) {
  const std::string v = f.string();
  for (Verdict k : {Verdict::kHolds, Verdict::kBreaks, Verdict::kClient, Verdict::kMeasured}) {
    if (verdict_name(k) == v) return k;
  }
  f.fail(fmt::format("expected holds, breaks, client or measured, got '{}'", v));
}

AnswerKind read_answer_kind(const report::Field& f) {
  const std::string v = f.string();
  for (AnswerKind k : {AnswerKind::kFound, AnswerKind::kClientLimited, AnswerKind::kNoRateHeld, AnswerKind::kNeverBroke,
                       AnswerKind::kSweep}) {
    if (answer_kind_name(k) == v) return k;
  }
  f.fail(fmt::format("expected found, client_limited, no_rate_held, never_broke or sweep, got '{}'", v));
}

std::optional<double> read_optional_rate(const report::Field& f) {
  if (f.is_null()) return std::nullopt;
  return f.number();
}

int read_count_int(const report::Field& f) { return report::read_int(f); }

}  // namespace

ojson terms_json(const std::vector<ObjectiveTerm>& terms) {
  ojson out = ojson::array();
  for (const ObjectiveTerm& t : terms) out.push_back(term_json(t));
  return out;
}

ojson settings_json(const SearchSetup& s) {
  return {{"step_duration_s", static_cast<double>(s.step_duration_ns) / 1e9},
          {"step_warmup_s", static_cast<double>(s.step_warmup_ns) / 1e9},
          {"precision", s.precision},
          {"budget_s", static_cast<double>(s.budget_ns) / 1e9},
          {"step_repeat", s.step_repeat},
          {"arrival", s.poisson ? "poisson" : "uniform"},
          {"connections", s.connections},
          {"threads", s.threads},
          {"start_rate_per_s", s.start_rate_per_s},
          {"start_from", s.start_from},
          {"server_sampled", s.server_sampled}};
}

ojson step_summary_json(const Step& s) {
  const StepFigures& f = s.figures;
  return {{"index", s.index},
          {"kind", s.probe ? "probe" : "step"},
          {"target_rate_per_s", f.target_rate_per_s},
          {"achieved_rate_per_s", f.achieved_rate_per_s},
          {"repeat", s.repeat},
          {"repeats", s.repeats},
          {"latency_ns", {{"p50", f.p50_ns}, {"p90", f.p90_ns}, {"p99", f.p99_ns}, {"max", f.max_ns}}},
          {"requests", f.requests},
          {"errors", f.errors},
          {"error_rate", f.error_rate},
          {"server_cpu", optional_rate(f.server_cpu)},
          {"verdict", verdict_name(s.verdict)},
          {"near", s.near},
          {"broken_by", s.broken_by},
          {"client_limit", s.client_limit}};
}

std::string render_capacity_json(const CapacityResult& r) {
  const Answer& a = r.answer;
  ojson steps = ojson::array();
  for (const Step& step : r.steps) {
    ojson entry = step_summary_json(step);
    entry["run"] = report::json_document(step.run);
    steps.push_back(std::move(entry));
  }
  const ojson doc = {
      {"schema", "pacer-capacity"},
      {"version", 1},
      {"mode", r.sweep ? "sweep" : "search"},
      {"url", r.url},
      {"command_line", r.command_line},
      {"objective", r.objective_text},
      {"terms", terms_json(r.terms)},
      {"settings", settings_json(r.setup)},
      {"answer",
       {{"outcome", answer_kind_name(a.kind)},
        {"holds_at_per_s", optional_rate(a.holds_at_per_s)},
        {"breaks_at_per_s", optional_rate(a.breaks_at_per_s)},
        {"broken_by", a.broken_by},
        {"client_limit", a.client_limit},
        {"sentence", answer_sentence(a, !r.terms.empty())},
        {"cut_short", a.cut_short},
        {"cut_reason", a.cut_reason},
        {"elapsed_s", static_cast<double>(a.elapsed_ns) / 1e9}}},
      {"steps", std::move(steps)}};
  return doc.dump(2) + "\n";
}

bool is_capacity_json(std::string_view text) {
  // The writer puts the schema first; a look at the head is enough to choose the reader.
  const std::string_view head = text.substr(0, 200);
  return head.find("\"schema\": \"pacer-capacity\"") != std::string_view::npos ||
         head.find("\"schema\":\"pacer-capacity\"") != std::string_view::npos;
}

Result<CapacityResult> read_capacity_json(std::string_view text, const std::string& source_name) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return bad_input(fmt::format("{}: not JSON", source_name));
  try {
    const report::Field root(doc, "");
    if (root.at("schema").string() != "pacer-capacity") root.at("schema").fail("expected \"pacer-capacity\"");
    if (root.at("version").count() != 1) root.at("version").fail("expected version 1");
    CapacityResult r;
    const std::string mode = root.at("mode").string();
    if (mode != "search" && mode != "sweep") root.at("mode").fail("expected search or sweep");
    r.sweep = mode == "sweep";
    r.url = root.at("url").string();
    r.command_line = root.at("command_line").string();
    r.objective_text = root.at("objective").string();
    if (!r.objective_text.empty()) {
      auto terms = parse_objective(r.objective_text, "objective");
      if (!terms) root.at("objective").fail(terms.error().message);
      r.terms = std::move(*terms);
    }
    const report::Field s = root.at("settings");
    r.setup.step_duration_ns = s.at("step_duration_s").seconds_ns();
    r.setup.step_warmup_ns = s.at("step_warmup_s").seconds_ns();
    r.setup.precision = s.at("precision").number();
    r.setup.budget_ns = s.at("budget_s").seconds_ns();
    r.setup.step_repeat = s.at("step_repeat").positive_int();
    r.setup.poisson = s.at("arrival").string() == "poisson";
    r.setup.connections = read_count_int(s.at("connections"));
    r.setup.threads = read_count_int(s.at("threads"));
    r.setup.start_rate_per_s = s.at("start_rate_per_s").number();
    r.setup.start_from = s.at("start_from").string();
    r.setup.server_sampled = s.has("server_sampled") && s.at("server_sampled").boolean();  // absent: an early file
    const report::Field a = root.at("answer");
    r.answer.kind = read_answer_kind(a.at("outcome"));
    r.answer.holds_at_per_s = read_optional_rate(a.at("holds_at_per_s"));
    r.answer.breaks_at_per_s = read_optional_rate(a.at("breaks_at_per_s"));
    r.answer.broken_by = a.at("broken_by").string();
    r.answer.client_limit = a.at("client_limit").string();
    r.answer.cut_short = a.at("cut_short").boolean();
    r.answer.cut_reason = a.at("cut_reason").string();
    r.answer.elapsed_ns = a.at("elapsed_s").seconds_ns();
    const report::Field steps = root.at("steps");
    if (!steps.value().is_array()) steps.fail("expected an array");
    for (std::size_t i = 0; i < steps.value().size(); ++i) {
      const report::Field f(steps.value()[i], fmt::format("steps[{}]", i));
      Step step;
      step.index = read_count_int(f.at("index"));
      const std::string kind = f.at("kind").string();
      if (kind != "probe" && kind != "step") f.at("kind").fail(fmt::format("expected probe or step, got '{}'", kind));
      step.probe = kind == "probe";
      step.verdict = read_verdict(f.at("verdict"));
      step.near = f.at("near").boolean();
      step.broken_by = f.at("broken_by").string();
      step.client_limit = f.at("client_limit").string();
      auto run = report::read_json_report_document(f.at("run").value(),
                                                   fmt::format("{} (step {})", source_name, step.index));
      if (!run) return run.error();
      step.run = std::move(*run);
      step.figures = step_figures(step.run);
      r.steps.push_back(std::move(step));
    }
    number_repeats(r.steps);
    return r;
  } catch (const report::FieldError& e) {
    return bad_input(fmt::format("{}: {}: {}", source_name, e.path, e.reason));
  }
}

}  // namespace pacer::capacity
