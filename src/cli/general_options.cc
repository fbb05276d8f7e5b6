// The run's own options' table; see the header.
#include "cli/general_options.h"

#include <array>
#include <ctime>

#include <fmt/format.h>

#include "cli/gate_options.h"
#include "cli/protocol_options.h"
#include "cli/request_options.h"
#include "cli/run_draft.h"
#include "cli/shard_auto.h"
#include "cli/shard_options.h"
#include "cli/units.h"
#include "cli/web_options.h"
#include "targets/target_file.h"

namespace pacer::cli::general {
namespace {

using Draft = RunDraft;
using Option = ScannedOption;

// -v, -h and --check-args change what is done, not the Config: cli.cc reads them from the scan.
Status read_from_scan(const Option&, Draft&) { return Ok{}; }

// -b and --json: one body per request, as two flags giving it would leave one silently unused.
Status keep_body(const Option& option, Draft& draft) {
  if (draft.body) {
    return bad_argument(fmt::format("{}: the body was already given by {}; give it once", option.flag, draft.body->flag));
  }
  draft.body = option;
  draft.json_body = option.id == opt::kJson;
  return Ok{};
}

Status apply_shard(const Option& option, Draft& draft) {
  if (is_auto_shard(option.value)) return parse_auto_shard(option.value, option.flag, draft.config, process_environment());
  return parse_shard(option.value, option.flag, draft.config);
}

Status apply_start_at(const Option& option, Draft& draft) {
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  const std::int64_t now_unix_ns = static_cast<std::int64_t>(wall.tv_sec) * kNsPerS + wall.tv_nsec;
  return store(parse_start_at(option.value, option.flag, now_unix_ns), draft.config.start_at_unix_ns);
}

Status apply_slo(const Option& option, Draft& draft) {
  auto gates = parse_slo(option.value, option.flag);
  if (!gates) return gates.error();
  draft.config.slo.insert(draft.config.slo.end(), gates->begin(), gates->end());
  return Ok{};
}

constexpr std::array<RunOptionRow, 22> kRows{{
    {{opt::kVersion, 'v', "version", false}, &read_from_scan},
    {{opt::kHelp, 'h', "help", false}, &read_from_scan},
    {{opt::kMethod, 'm', "method", true},
     [](const Option& option, Draft& draft) {
       draft.is_method_given = true;
       return store(request::parse_method(option), draft.config.method);
     }},
    {{opt::kBody, 'b', "body", true}, &keep_body},
    {{opt::kDisableKeepalive, '\0', "disable-keepalive", false},
     [](const Option&, Draft& draft) -> Status {
       draft.config.keep_alive = false;
       return Ok{};
     }},
    {{opt::kNoRecordTimeouts, '\0', "no-record-timeouts", false},
     [](const Option&, Draft& draft) -> Status {
       draft.config.record_timeouts = false;
       return Ok{};
     }},
    {{opt::kSlo, '\0', "slo", true}, &apply_slo},
    {{opt::kMaxErrorRate, '\0', "max-error-rate", true},
     [](const Option& option, Draft& draft) {
       return store(parse_error_rate(option.value, option.flag), draft.config.max_error_rate);
     }},
    {{opt::kShard, '\0', "shard", true}, &apply_shard},
    {{opt::kStartAt, '\0', "start-at", true}, &apply_start_at},
    {{opt::kHttp2, '\0', "http2", false},
     [](const Option&, Draft& draft) -> Status {
       draft.config.http2 = true;
       return Ok{};
     }},
    {{opt::kHttp3, '\0', "http3", false},
     [](const Option&, Draft& draft) -> Status {
       draft.config.http3 = true;
       return Ok{};
     }},
    {{opt::kStreams, '\0', "streams", true},
     [](const Option& option, Draft& draft) {
       draft.streams_given = true;
       return store(parse_streams(option.value, option.flag), draft.config.streams);
     }},
    {{opt::kPipeline, '\0', "pipeline", true},
     [](const Option& option, Draft& draft) {
       draft.pipeline_given = true;
       return store(parse_pipeline(option.value, option.flag), draft.config.pipeline);
     }},
    {{opt::kScript, 's', "script", true},
     [](const Option& option, Draft& draft) -> Status {
       if (option.value.empty()) return bad_argument(fmt::format("{}: script path is empty", option.flag));
       draft.config.script_path = option.value;
       return Ok{};
     }},
    {{opt::kCheckArgs, '\0', "check-args", false}, &read_from_scan},
    {{opt::kJson, '\0', "json", true}, &keep_body},
    // Targets and request names (issue 15).
    {{opt::kTargets, '\0', "targets", true},
     [](const Option& option, Draft& draft) -> Status {
       if (option.value.empty()) return bad_argument(fmt::format("{}: the targets file name is empty", option.flag));
       draft.config.targets_path = option.value;
       return Ok{};
     }},
    {{opt::kTargetsOrder, '\0', "targets-order", true},
     [](const Option& option, Draft& draft) {
       draft.targets_order_given = true;
       return store(targets::parse_targets_order(option.value, option.flag), draft.config.targets_order);
     }},
    // The live web view (cli/web_options.h).
    {{opt::kWeb, '\0', "web", false, &looks_like_web_address},
     [](const Option& option, Draft& draft) {
       draft.config.web.enabled = true;
       return parse_web_address(option.value, option.flag, draft.config.web);
     }},
    {{opt::kWebToken, '\0', "web-token", true},
     [](const Option& option, Draft& draft) {
       draft.web_token_given = true;
       return store(parse_web_token(option.value, option.flag), draft.config.web.token);
     }},
    {{opt::kWebLinger, '\0', "web-linger", true},
     [](const Option& option, Draft& draft) {
       draft.web_linger_given = true;
       return store(parse_duration(option.value, option.flag), draft.config.web.linger_ns);
     }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

}  // namespace pacer::cli::general
