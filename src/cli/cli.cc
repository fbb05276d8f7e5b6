// argv -> Invocation: picks the command (run, serve, demo, help, version), scans
// the run options and applies each through its module's table (cli/run_options.h),
// then checks them against each other. The
// only side effects are reading a -b file or stdin and raising RLIMIT_NOFILE.
// Main thread, once.
#include "cli/cli.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <strings.h>
#include <memory>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "cli/body_source.h"
#include "cli/cert_options.h"
#include "cli/config_layers.h"
#include "cli/settings_toml.h"
#include "cli/connect_options.h"
#include "cli/csv_options.h"
#include "cli/fd_limit.h"
#include "cli/shard_auto.h"
#include "cli/shard_options.h"
#include "cli/tls_options.h"
#include "cli/cookie_options.h"
#include "cli/log_options.h"
#include "cli/io_options.h"
#include "cli/input_checks.h"
#include "cli/load_options.h"
#include "cli/merge_options.h"
#include "cli/option_scan.h"
#include "cli/run_options.h"
#include "cli/secrets.h"
#include "cli/output_options.h"
#include "cli/protocol_options.h"
#include "cli/request_options.h"
#include "cli/report_options.h"
#include "cli/scenario_options.h"
#include "cli/serve_options.h"
#include "cli/units.h"
#include "proto/http1_request.h"
#include "targets/target_file.h"
#include "cli/capacity_options.h"
#include "cli/evidence_options.h"
#include "cli/prometheus_options.h"
#include "cli/web_options.h"
#include "cli/wire_options.h"

namespace pacer::cli {
namespace {

constexpr TimeNs kDemoDurationNs = 5 * kNsPerS;

// The URL (kRun) or its absence (kDemo).
Status check_positionals(const std::vector<std::string>& positionals, Command command,
                         Config& config) {
  for (const std::string& arg : positionals) {
    if (arg == "serve" || arg == "demo" || arg == "merge" || arg == "cert" || arg == "report") {
      return bad_argument(fmt::format("'{}' must come first: pacer {} [options]", arg, arg));
    }
  }
  if (command == Command::kDemo) {
    if (positionals.empty()) return Ok{};
    return bad_argument(fmt::format(
        "demo takes no URL; it runs against the built-in server (got '{}')", positionals[0]));
  }
  if (positionals.empty() && !config.targets_path.empty()) return Ok{};  // the targets file gives the origin
  if (positionals.empty()) {
    return bad_argument("missing URL (usage: pacer [options] URL; see pacer --help)");
  }
  if (positionals.size() > 1 && !config.script_path.empty()) {
    // As in wrk: what follows the URL goes to the script's init(args).
    config.script_args.assign(positionals.begin() + 1, positionals.end());
  } else if (positionals.size() > 1 && config.is_scenario()) {
    config.scenario_args.assign(positionals.begin() + 1, positionals.end());  // pacer.args
  } else if (positionals.size() > 1) {
    return bad_argument(fmt::format("unexpected argument '{}' (only one URL is allowed)",
                                    positionals[1]));
  }
  return store(parse_url(positionals[0]), config.target);
}

bool has_header(const Config& config, std::string_view name) {
  return std::any_of(config.headers.begin(), config.headers.end(), [name](const Header& h) {
    return h.name.size() == name.size() && strncasecmp(h.name.c_str(), name.data(), name.size()) == 0;
  });
}

// --json, as curl's: the body says it is JSON and asks for JSON back, unless -H
// already says otherwise.
void add_json_headers(Config& config) {
  if (!has_header(config, "Content-Type")) config.headers.push_back({"Content-Type", "application/json"});
  if (!has_header(config, "Accept")) config.headers.push_back({"Accept", "application/json"});
}

// --targets: reads the file (after -b, whose body targets without one take) and
// resolves its URLs against the command line's; without a URL there the file's
// first absolute URL is the run's.
Status load_targets(RunDraft& draft, bool no_url, int stdin_fd) {
  Config& config = draft.config;
  if (config.targets_path.empty()) {
    if (draft.targets_order_given) return bad_argument("--targets-order needs --targets (a file of requests)");
    return Ok{};
  }
  if (!config.script_path.empty()) {
    return bad_argument("--targets and --script both say what to send: a script's request() builds its own requests");
  }
  if (config.is_scenario()) {  // scenarios (issue 16)
    return bad_argument("--targets: not with --scenario (a scenario names its own requests)");
  }
  if (config.targets_path == "-" && draft.body && draft.body->value == "@-") {
    return bad_argument("--targets - and -b @- both read stdin: give one of them a file");
  }
  auto list = targets::read_targets(config.targets_path, stdin_fd,
                                    no_url ? std::nullopt : std::optional<Target>(config.target),
                                    config.max_request_body_bytes);
  if (!list) return list.error();
  config.targets = std::move(list->targets);
  if (no_url) config.target = std::move(list->origin);
  // Each target as it will be sent: with -H's headers and, when it has none, -b's body (read by now).
  for (const RequestTarget& t : config.targets) {
    if (Status framed = targets::check_target_framing(proto::with_command_line(config, t), config.http2); !framed) {
      return framed;
    }
  }
  return Ok{};
}

// Checks between options, then the derived settings.
Status finish_run_draft(RunDraft& draft, Command command) {
  Config& config = draft.config;
  // A capacity search's steps are open-model runs (-R is its start rate).
  if (Status capacity = capacity_flags::finish(config, draft.load.stages_given); !capacity) return capacity;
  // The warm-up comes before the measured duration (the run lasts both), so it
  // need not be shorter than -d.
  if (Status load = finish_load_options(config, draft.load.stages_given, draft.load.arrival_given, draft.load.deadline_given);
      !load) {
    return load;
  }
  if (Status protocol = finish_protocol_options(config, draft.streams_given, draft.pipeline_given); !protocol) {
    return protocol;
  }
  if (Status wire = finish_wire_options(config); !wire) return wire;
  if (Status scenario = finish_scenario_options(config, draft.scenario); !scenario) return scenario;
  if (Status share = apply_shard_share(config); !share) return share;
  if (config.tls_cert_file.empty() != config.tls_key_file.empty()) {
    return bad_argument(config.tls_cert_file.empty() ? "--key needs --cert too (the client certificate)"
                                                     : "--cert needs --key too (the certificate's private key)");
  }
  if (Status secure = tls::finish(config); !secure) return secure;
  // The demo's server is in-process: the environment's proxy is not for it.
  const proxy::EnvLookup no_env = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
  if (Status conn = connect::finish(config, draft.connect, command == Command::kDemo ? no_env : process_environment());
      !conn) {
    return conn;
  }
  if (config.body && !draft.is_method_given) config.method = "POST";  // as curl -d, h2load -d
  if (draft.json_body) add_json_headers(config);
  if (Status headers = check_request_headers(config); !headers) return headers;
  if (Status log = request_log::finish(config, draft.request_log); !log) return log;
  if (Status outputs = check_output_files(config); !outputs) return outputs;
  if (Status csv = finish_csv_options(config); !csv) return csv;
  if (Status web = finish_web_options(config.web, draft.web_token_given, draft.web_linger_given); !web) return web;
  if (Status prom = finish_prometheus_options(config); !prom) return prom;
  if (Status evidence = evidence_flags::finish(config); !evidence) return evidence;
  config.threads = std::min(config.threads, config.connections);
  if (command == Command::kRun) return ensure_fd_limit(config.connections, config.threads);
  // The demo's in-process server holds the other end of every connection.
  const int both_ends = config.connections > std::numeric_limits<int>::max() / 2
                            ? std::numeric_limits<int>::max()
                            : config.connections * 2;
  return ensure_fd_limit(both_ends, config.threads * 2);
}

Result<Invocation> parse_run_args(Command command, std::span<const std::string> args, int stdin_fd) {
  const ScanResult scan = scan_options(args, run_option_specs(), "pacer --help");
  Invocation out;
  if (scan.has(opt::kHelp)) {
    out.command = Command::kHelp;
    out.help_text = usage();
    return out;
  }
  if (scan.has(opt::kVersion)) {
    out.command = Command::kVersion;
    return out;
  }
  if (scan.first_error) return *scan.first_error;

  RunDraft draft;
  if (command == Command::kDemo) draft.config.duration_ns = kDemoDurationNs;
  if (Status io = check_io_env(); !io) return io.error();  // PACER_IO
  if (Status applied = apply_run_options(scan.options, draft); !applied) return applied.error();
  if (draft.body) {
    auto body = read_body_argument(draft.body->value, draft.body->flag, stdin_fd,
                                   draft.config.max_request_body_bytes);
    if (!body) return body.error();
    draft.config.body = std::move(*body);
  }
  if (Status url = check_positionals(scan.positionals, command, draft.config); !url) {
    return url.error();
  }
  if (Status cookie = cookies::finish(draft.config); !cookie) return cookie.error();
  if (Status loaded = load_targets(draft, scan.positionals.empty(), stdin_fd); !loaded) return loaded.error();
  if (Status finished = finish_run_draft(draft, command); !finished) return finished.error();
  if (scan.has(opt::kCheckArgs) && command != Command::kRun) {
    return bad_argument("--check-args checks a run's arguments (pacer --check-args [options] URL), not the demo's");
  }
  out.command = scan.has(opt::kCheckArgs) ? Command::kCheckArgs : command;
  out.run = std::move(draft.config);
  return out;
}

// --config FILE and PACER_* (cli/config_layers.h) become arguments in front of
// the command line's; an error about a value from them says where it came from.
Result<Invocation> parse_run(Command command, std::span<const std::string> args, int stdin_fd) {
  auto layered = apply_config_layers(args, pacer_environment(), run_option_specs(), command != Command::kDemo);
  if (!layered) return layered.error();
  if (layered->print_config) {
    Invocation out;
    out.command = Command::kHelp;
    out.help_text = render_settings(*layered);
    return out;
  }
  auto run = parse_run_args(command, layered->args, stdin_fd);
  if (!run) return with_origin(run.error(), *layered);
  return run;
}

}  // namespace

Result<Invocation> parse(const std::vector<std::string>& args, int stdin_fd) {
  const std::span<const std::string> all(args);
  if (!args.empty() && args[0] == "serve") return parse_serve(all.subspan(1));
  if (!args.empty() && args[0] == "merge") return parse_merge(all.subspan(1));
  if (!args.empty() && args[0] == "cert") return parse_cert(all.subspan(1));
  if (!args.empty() && args[0] == "report") return parse_report(all.subspan(1));
  auto run = !args.empty() && args[0] == "demo" ? parse_run(Command::kDemo, all.subspan(1), stdin_fd)
                                                 : parse_run(Command::kRun, all, stdin_fd);
  if (run) {  // the reports' config.command_line, without a password or token (cli/secrets.h)
    const std::size_t skip = !args.empty() && args[0] == "demo" ? 1 : 0;
    std::vector<std::string> shown(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(skip));
    const std::vector<std::string> rest = without_secrets(all.subspan(skip), run_option_specs());
    shown.insert(shown.end(), rest.begin(), rest.end());
    run->run.command_line = quote_command_line(shown);
  }
  return run;
}

std::string quote_command_line(const std::vector<std::string>& args) {
  std::string out = "pacer";
  for (const std::string& arg : args) {
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./:=,@%+").find(c) != std::string_view::npos;
    });
    out += ' ';
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace pacer::cli
