// See report_fields.h.
#include "engine/report_fields.h"

#include <strings.h>

#include <algorithm>

#include "core/shard_share.h"
#include "io/select.h"
#include "targets/target_file.h"

namespace pacer::engine {

report::RunReport make_report(const Config& config) {
  report::RunReport r;
  r.url = config.target.url;
  r.method = config.method;
  r.connections = config.connections;
  r.duration_ns = config.duration_bounds_run() ? config.duration_ns : 0;
  r.request_count = config.request_count;
  r.timeout_ns = config.timeout_ns;
  r.warmup_ns = config.warmup_ns;
  r.keep_alive = config.keep_alive;
  r.protocol = config.protocol_name();
  r.requests_per_connection = config.requests_per_connection();
  r.print_latency = config.print_latency;
  r.record_timeouts = config.record_timeouts;
  r.load_model = config.load_model;
  r.rate_per_s = config.rate_per_s;
  r.rate_end_per_s = config.rate_end_per_s;
  r.stages = config.stages;
  r.poisson = config.poisson;
  r.seed = config.seed;
  r.deadline_ns = config.deadline_ns;
  // A script may set its own headers and body, so only a -b body is judged.
  r.body_without_content_type = config.body && config.script_path.empty() &&
                                std::none_of(config.headers.begin(), config.headers.end(), [](const Header& h) {
                                  return strcasecmp(h.name.c_str(), "Content-Type") == 0;
                                });
  r.targets_file = !config.targets_path.empty();
  r.targets_count = config.targets.size();
  r.targets_order = targets::targets_order_name(config.targets_order);
  r.unix_socket = config.unix_socket_path;
  r.follow_redirects = config.follow_redirects;
  r.compressed = config.compressed;
  r.slo = config.slo;
  r.max_error_rate = config.max_error_rate;
  r.shard_index = config.shard_index;
  r.shard_count = config.shard_count;
  r.shard_source = config.shard_source;
  // The engine --io picks (checked once per process; run() fails on an impossible --io uring).
  if (const auto io = io::choose_engine(config.io)) {
    r.io_engine = io::engine_name(io->kind);
    r.io_fallback = io->fallback;
  }
  r.spin = config.spin;
  if (config.proxy) {
    r.proxy = config.proxy->shown;
    r.proxy_source = config.proxy->source;
    r.proxy_tunnel = config.proxy->tunnel;
  }
  r.bind_addresses = config.bind_addresses.size();
  const ShardShare share = shard_share(config);
  r.test_connections = share.test_connections;
  r.test_request_count = share.test_requests;
  return r;
}

}  // namespace pacer::engine
