// Which progress display a run gets: the live view (stdout is a terminal that can
// redraw, and the text report goes there) or plain lines; with colour or not
// (NO_COLOR); with block characters or ASCII (the locale). Pure: the caller
// passes what it read from the process.
#pragma once

#include <optional>
#include <string>

namespace pacer::ui {

// The environment variables that matter, as read (nullopt: unset).
struct TerminalEnv {
  std::optional<std::string> term;
  std::optional<std::string> no_color;
  std::optional<std::string> lc_all;
  std::optional<std::string> lc_ctype;
  std::optional<std::string> lang;
  // A rank of a parallel launcher (mpirun/mpiexec, srun): its "terminal" is a pty
  // the launcher merges with every other rank's into one stream, so a redrawn view
  // would interleave; the first of OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
  // SLURM_STEP_ID found, else empty.
  std::optional<std::string> launcher_rank;
  static TerminalEnv from_process();
};

struct DisplayChoice {
  bool live = false;     // the redrawn view on stdout; otherwise plain lines on stderr
  bool colour = false;   // only ever with `live`
  bool unicode = false;  // block characters in the live view
  bool silent = false;   // neither: a capacity search's step, whose row the search prints
};

// stdout_is_terminal: isatty(1). text_report_on_stdout: the final text report
// (not JSON, not moved to stderr by --timeseries -) is written to stdout.
DisplayChoice choose_display(bool stdout_is_terminal, bool plain_requested, bool text_report_on_stdout,
                             const TerminalEnv& env);

}  // namespace pacer::ui
