// run(): Config -> RunReport. Resolves once, probes the addresses, builds the
// request bytes once, starts one Worker thread per share of the connections,
// waits for them, and merges their counters and histograms. Main thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>

#include "core/config.h"
#include "core/expected.h"
#include "engine/interval_sink.h"
#include "engine/report_fields.h"
#include "report/interval_report.h"
#include "report/run_report.h"
#include "script/script_host.h"

namespace pacer::engine {

class LoadControl;

// Errors are kRuntime (exit 1): unresolvable host, no address accepting
// connections, or a resource failure at set-up; kBadInput/kBadArgument (exit 2)
// for https:// when --cacert, --cert or --key cannot be used (checked before
// any connection). A server that fails every TLS handshake is not an error here:
// the report counts `tls` errors and no request succeeds. `stop` may be set from a signal
// handler to end the run early; the report is then marked interrupted.
// With `interval_ns` > 0 and a sink, the sink gets every interval's figures and
// `tick` (optional) the time as it passes.
// With a script (loaded, not yet set up), run() sets it up once the target
// answers (errors: kBadInput, exit 2); a script error during the run ends it
// with a kRuntime error carrying the Lua message.
// With `control` (a scenario's closed model: a load shape, the web view), the
// users follow its count while the run goes; a shape's Lua error ends the run
// with a kRuntime error; the changes are in the report (load_changes).
Result<report::RunReport> run(const Config& config, const std::atomic<bool>& stop, TimeNs interval_ns = 0,
                              const IntervalSink& sink = nullptr, const TickSink& tick = nullptr,
                              script::ScriptHost* script = nullptr, LoadControl* control = nullptr);

}  // namespace pacer::engine
