// The live view as text: a pure function of a DashboardSnapshot and the
// terminal's width, so it is tested with golden files. No line is longer than
// the width (the terminal's own wrapping would break the redraw): a line too
// wide is laid out again, its figures closer together and then on continuation
// rows, so nothing essential is cut; only one figure wider than the terminal
// (a long URL) is clipped; colour, when on, marks
// only what needs attention: errors (red) and an open-model run falling behind
// its target (yellow).
#pragma once

#include <string>

#include "ui/dashboard_model.h"

namespace pacer::ui {

struct RenderOptions {
  int width = 80;        // columns; the layout is made for 80 and more, and clips below
  bool colour = false;   // ANSI SGR colours (off for NO_COLOR)
  bool unicode = true;   // block characters; ASCII otherwise (non-UTF-8 locale)
  TimeNs interval_ns = kNsPerS;  // the span of the "last" figures (--interval)
};

// Lines separated by "\n" (the last one too). No cursor movement: the terminal
// code positions the frame.
std::string render(const DashboardSnapshot& snapshot, const RenderOptions& options);

// "4.2s", "1m05s", "2h03m": elapsed and total time on the progress bar.
std::string format_clock(TimeNs ns);

// Display columns of UTF-8 text without escape sequences (one per code point).
int display_width(const std::string& text);

}  // namespace pacer::ui
