// Fuzz target: the whole command line, cli::parse over argv (options in every
// spelling, commands serve/demo/merge/cert, --help), so the option scanner and
// the checks between options are fuzzed along with the value parsers.
//
// Input: the arguments separated by NUL bytes (at most 64). Inputs that would
// make parse read a file that never ends are skipped: an '@' not followed by
// '-' (-b @FILE; `@-` reads the given stdin text) and absolute paths
// (--cacert /dev/...); relative names are only opened for reading.
//
// Invariants beyond "no crash":
//   - parse is deterministic (the same input gives the same result);
//   - a refusal is a bad-argument or bad-input error (exit 2) with a message;
//   - an accepted run has threads >= 1, connections >= threads, a port, a
//     positive duration or a request count, headers without CR/LF/NUL, and
//     rates that are finite.
#include <cmath>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "fuzz_support.h"

namespace {

using pacer::ErrorKind;
using pacer::cli::Command;

bool safe(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (!a.empty() && a[0] == '/') return false;
    for (std::size_t at = a.find('@'); at != std::string::npos; at = a.find('@', at + 1)) {
      if (at + 1 >= a.size() || a[at + 1] != '-') return false;
    }
    if (a.find("=/") != std::string::npos) return false;
  }
  return true;
}

std::string describe(const pacer::Result<pacer::cli::Invocation>& r) {
  if (!r) return "error: " + r.error().message;
  const pacer::Config& c = r->run;
  return std::to_string(static_cast<int>(r->command)) + " " + c.target.url + " " + std::to_string(c.threads) + " " +
         std::to_string(c.connections) + " " + std::to_string(c.duration_ns) + " " + r->help_text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      if (args.size() == 64) return 0;
      args.emplace_back();
    } else {
      args.back().push_back(static_cast<char>(data[i]));
    }
  }
  if (!safe(args)) return 0;

  const pacer::fuzz::StdinText in1("stdin body");
  const auto first = pacer::cli::parse(args, in1.get());
  const pacer::fuzz::StdinText in2("stdin body");
  const auto second = pacer::cli::parse(args, in2.get());
  FUZZ_CHECK(describe(first) == describe(second));
  if (!first) {
    FUZZ_CHECK(first.error().kind == ErrorKind::kBadArgument || first.error().kind == ErrorKind::kBadInput);
    FUZZ_CHECK(!first.error().message.empty());
    return 0;
  }
  if (first->command != Command::kRun) return 0;
  const pacer::Config& c = first->run;
  FUZZ_CHECK(c.threads >= 1 && c.connections >= c.threads);
  FUZZ_CHECK(c.target.port != 0);
  FUZZ_CHECK(c.duration_ns > 0 || c.request_count.has_value());
  for (const pacer::Header& h : c.headers) {
    FUZZ_CHECK(h.name.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
    FUZZ_CHECK(h.value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
  }
  FUZZ_CHECK(std::isfinite(c.rate_per_s) && std::isfinite(c.rate_end_per_s));
  return 0;
}
