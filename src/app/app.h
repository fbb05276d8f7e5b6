// The command dispatcher: argv -> exit code (DESIGN.md section 2). Owns process
// concerns: stdout/stderr, signals, exit codes. Main thread only.
#pragma once

namespace pacer::app {

int main_entry(int argc, char** argv);

}  // namespace pacer::app
