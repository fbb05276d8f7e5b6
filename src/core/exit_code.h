// The process exit codes, DESIGN.md section 2. One enum, used by main and the tests.
#pragma once

namespace pacer {

enum class ExitCode : int {
  kOk = 0,            // run completed; every gate passed
  kRunFailed = 1,     // could not start or finish, or not one request succeeded
  kBadArguments = 2,  // bad arguments or unreadable input file
  kGateFailed = 3,    // a gate (--slo, --max-error-rate) failed
  kUndecided = 4,     // pacer report --compare: a --max-regression bound was passed, but
                      // within noise too large to judge (and none beyond it)
  kSigint = 130,
  kSigterm = 143,
};

inline int to_int(ExitCode code) { return static_cast<int>(code); }

}  // namespace pacer
