// Which display a run gets (src/ui/display_mode.h).
#include "ui/display_mode.h"

#include <gtest/gtest.h>

namespace pacer::ui {
namespace {

TerminalEnv xterm() {
  TerminalEnv env;
  env.term = "xterm-256color";
  env.lang = "en_US.UTF-8";
  return env;
}

TEST(DisplayMode, ATerminalWithTheTextReportGetsTheLiveViewInColour) {
  const DisplayChoice d = choose_display(true, false, true, xterm());
  EXPECT_TRUE(d.live);
  EXPECT_TRUE(d.colour);
  EXPECT_TRUE(d.unicode);
}

TEST(DisplayMode, NoTerminalPlainOrAReportElsewhereGetPlainLines) {
  EXPECT_FALSE(choose_display(false, false, true, xterm()).live);  // piped
  EXPECT_FALSE(choose_display(true, true, true, xterm()).live);    // --plain
  EXPECT_FALSE(choose_display(true, false, false, xterm()).live);  // JSON or --timeseries - on stdout
}

// Issue 31: mpirun and srun give each rank a pty and merge them into one stream.
TEST(DisplayMode, ARankUnderMpirunOrSrunGetsPlainLines) {
  TerminalEnv env = xterm();
  env.launcher_rank = "3";
  EXPECT_FALSE(choose_display(true, false, true, env).live);
}

TEST(DisplayMode, DumbOrUnknownTerminalsGetPlainLines) {
  TerminalEnv env = xterm();
  env.term = "dumb";
  EXPECT_FALSE(choose_display(true, false, true, env).live);
  env.term.reset();
  EXPECT_FALSE(choose_display(true, false, true, env).live);
}

TEST(DisplayMode, NoColorSetAndNotEmptyTurnsColourOff) {
  TerminalEnv env = xterm();
  env.no_color = "1";
  const DisplayChoice d = choose_display(true, false, true, env);
  EXPECT_TRUE(d.live);
  EXPECT_FALSE(d.colour);
  env.no_color = "";
  EXPECT_TRUE(choose_display(true, false, true, env).colour);
}

TEST(DisplayMode, BlocksOnlyInAUtf8LocaleWhereLcAllWins) {
  TerminalEnv env = xterm();
  env.lc_all = "C";
  EXPECT_FALSE(choose_display(true, false, true, env).unicode);
  env.lc_all.reset();
  env.lc_ctype = "C.utf8";
  EXPECT_TRUE(choose_display(true, false, true, env).unicode);
  env.lc_ctype.reset();
  env.lang.reset();
  EXPECT_FALSE(choose_display(true, false, true, env).unicode);
}

}  // namespace
}  // namespace pacer::ui
