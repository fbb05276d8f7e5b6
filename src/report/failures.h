// The run's failures as the failures files list them (pacer's --csv and
// Locust's _failures.csv): per request name, what failed its requests, with a
// count: an error class without a response (timeout, read, ...), a status
// error by its code (those a task accepted with u:success() are none), a
// scenario's check by its message. Derived once from the RunReport, so both
// files, and the counts beside them, agree. Pure; main thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/run_report.h"

namespace pacer::report {

struct FailureRow {
  std::string name;         // the request name; "" for failures of no request (a connect, an arrival never sent)
  std::string error_class;  // "status", "check", "timeout", "script", ...
  int status = 0;           // `status`: the code; 0 for the codes past those kept per name
  // `check`: u:fail's message ("" for the checks whose message was not among the
  // first kept); `script`: the Lua error, `name` its task or hook; another class:
  // the run's first reason of the class when it can only be this row's, else "".
  std::string message;
  std::uint64_t count = 0;
};

// Per endpoint in the report's order: its error classes (kFields' order), its
// status errors by code, its checks by message; then the failures of no request,
// then the scenario's script errors. Rows of count 0 are left out.
std::vector<FailureRow> failure_rows(const RunReport& r);

// The first reason the run kept for an error class ("connect: Connection refused",
// the TLS one, a check's or script's first message), "" when none.
std::string first_reason(const RunReport& r, const std::string& error_class);

}  // namespace pacer::report
