// Command-line parsing: argv -> Invocation (plain, validated data). wrk's options,
// meanings and defaults, plus pacer's own. Every rejection is an Error of kind
// kBadArgument/kBadInput whose message names the flag and what was wrong (exit 2).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/expected.h"
#include "server/serve_config.h"

namespace pacer::cli {

enum class Command {
  kRun,      // pacer [options] URL
  kCheckArgs,  // pacer --check-args [options] URL: validate, print what would run, exit
  kServe,    // pacer serve [options]
  kDemo,     // pacer demo [options]: built-in target in-process + a short run
  kMerge,    // pacer merge [options] FILE...: combine shards' JSON reports
  kCert,     // pacer cert --out DIR: write a self-signed certificate and key
  kReport,   // pacer report [options] FILE...: HTML/CSV from JSON reports, or --compare two
  kHelp,     // -h/--help (also `pacer serve --help`): print usage, exit 0
  kVersion,  // -v/--version
};

// `pacer merge`: which JSON reports to combine and how to print the result.
// The largest report file `pacer report` and `pacer merge` read
// (--max-report-size): a report is read whole and parsed into a document about
// six times its size, so the cap bounds their memory (about 1.5 GiB at 256 MiB).
constexpr std::uint64_t kDefaultMaxReportBytes = 256ULL * 1024 * 1024;

struct MergeOptions {
  std::vector<std::string> paths;  // at least one, in command-line order
  bool json_format = false;        // --format json (default text)
  std::string output_path;         // -o: also write the merged report here, atomically
  bool force = false;              // --force: merge reports whose configurations differ
  bool allow_missing = false;      // --allow-missing: merge a set that lacks shards
  TimeNs start_tolerance_ns = kNsPerS;  // --start-tolerance: flag shards that started further apart
  bool print_latency = false;      // --latency: the text report's distribution
  std::uint64_t max_report_bytes = kDefaultMaxReportBytes;  // --max-report-size: per input file
};

// `pacer cert`: where to write cert.pem and key.pem, and for which names.
struct CertOptions {
  std::string out_dir;             // an existing directory
  std::vector<std::string> hosts;  // subjectAltNames (DNS or IP); default localhost, 127.0.0.1, ::1
  int valid_days = 30;
};

// `pacer report`: which JSON reports to draw, and where.
struct ReportOptions {
  std::vector<std::string> paths;       // one run (several: its shards, merged), or two with --compare
  std::string output_path;              // -o: the HTML report
  std::string csv_prefix;               // --csv: PREFIX_stats.csv, _history.csv, _failures.csv
  bool csv_locust = false;              // --csv-format locust: Locust's four files instead
  bool csv_full_history = false;        // --csv-full-history (with locust)
  bool compare = false;                 // --compare BASELINE CANDIDATE
  std::string max_regression;           // --max-regression p99=10%,rps=5% (checked at parse time)
  bool strict = false;                  // --strict: a bound broken is a regression, significant or not (issue 28)
  bool force = false;                   // as pacer merge's
  bool allow_missing = false;
  TimeNs start_tolerance_ns = kNsPerS;
  std::uint64_t max_report_bytes = kDefaultMaxReportBytes;  // --max-report-size: per input file
};

struct Invocation {
  Command command = Command::kRun;
  Config run;                  // kRun and kDemo (for kDemo, target is filled in by the app)
  server::ServeConfig serve;   // kServe
  MergeOptions merge;          // kMerge
  CertOptions cert;            // kCert
  ReportOptions report;        // kReport
  std::string help_text;       // kHelp: the text to print (usage, or --print-config's settings)
};

// args: argv[1..]. Standard input (stdin_fd) is read only for `-b @-` and
// `--targets -`.
Result<Invocation> parse(const std::vector<std::string>& args, int stdin_fd);

// argv[1..] as one shell command line ("pacer -c 10 'http://x/?a b'"):
// arguments with characters a shell would read specially are single-quoted.
std::string quote_command_line(const std::vector<std::string>& args);

std::string usage();        // `pacer --help`
std::string serve_usage();  // `pacer serve --help`
std::string merge_usage();  // `pacer merge --help`
std::string cert_usage();   // `pacer cert --help`
std::string report_usage(); // `pacer report --help`
std::string version_line(); // "pacer X.Y.Z [io_uring]", "[epoll]", "[epoll; io_uring unavailable: why]""

}  // namespace pacer::cli
