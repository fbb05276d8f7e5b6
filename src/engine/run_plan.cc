// See run_plan.h.
#include "engine/run_plan.h"

namespace pacer::engine {

PartOptions part_options(const Config& config) {
  PartOptions o;
  o.connect = {config.timeout_ns, config.give_up_period_ns(), config.tls_resume};
  o.exchange = {config.timeout_ns, config.keep_alive, config.record_timeouts};
  o.load = {config.timeout_ns, config.deadline_ns,  config.record_timeouts, config.poisson,
            config.shard_index, config.shard_count, config.seed, config.stop_timeout_ns};
  o.wire = {config.target, config.follow_redirects, config.compressed};
  o.loop = {config.spin, config.interval_ns};
  return o;
}

}  // namespace pacer::engine
