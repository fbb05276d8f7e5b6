#include "ui/display_mode.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace pacer::ui {

namespace {

std::optional<std::string> read_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

bool set_and_not_empty(const std::optional<std::string>& v) { return v && !v->empty(); }

// The locale's character set, as setlocale would pick it: LC_ALL, then LC_CTYPE, then LANG.
bool is_utf8_locale(const TerminalEnv& env) {
  for (const auto* v : {&env.lc_all, &env.lc_ctype, &env.lang}) {
    if (!set_and_not_empty(*v)) continue;
    std::string lower = **v;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower.find("utf-8") != std::string::npos || lower.find("utf8") != std::string::npos;
  }
  return false;
}

}  // namespace

TerminalEnv TerminalEnv::from_process() {
  TerminalEnv env{read_env("TERM"), read_env("NO_COLOR"), read_env("LC_ALL"), read_env("LC_CTYPE"), read_env("LANG"),
                  std::nullopt};
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_STEP_ID"}) {
    if (!env.launcher_rank) env.launcher_rank = read_env(name);
  }
  return env;
}

DisplayChoice choose_display(bool stdout_is_terminal, bool plain_requested, bool text_report_on_stdout,
                             const TerminalEnv& env) {
  DisplayChoice out;
  // A terminal that cannot move the cursor (TERM unset or dumb) gets plain lines.
  const bool can_redraw = set_and_not_empty(env.term) && *env.term != "dumb";
  // Under mpirun or srun every rank's view would land in one stream: plain lines.
  const bool under_launcher = env.launcher_rank.has_value();
  out.live = stdout_is_terminal && !plain_requested && text_report_on_stdout && can_redraw && !under_launcher;
  // https://no-color.org: set and not empty disables colour.
  out.colour = out.live && !set_and_not_empty(env.no_color);
  out.unicode = out.live && is_utf8_locale(env);
  return out;
}

}  // namespace pacer::ui
