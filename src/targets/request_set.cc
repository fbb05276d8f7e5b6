// Building the run's requests. See request_set.h.
#include "targets/request_set.h"

#include <strings.h>

namespace pacer::targets {

RequestSet::RequestSet(const Config& config, stats::NameTable& names) {
  std::vector<RequestTarget> requests;
  if (config.targets.empty()) {
    requests.push_back(proto::command_line_request(config));
  } else {
    for (const RequestTarget& t : config.targets) requests.push_back(proto::with_command_line(config, t));
  }
  const auto count = requests.size();
  bytes_.reserve(count);
  http2_.reserve(config.http2 || config.http3 ? count : 0);  // HTTP/3 builds on the same header lists
  repeated_.reserve(count);
  std::vector<std::uint32_t> weights;
  for (const RequestTarget& r : requests) {
    bytes_.push_back(proto::build_request(config, r));
    std::string repeated;
    if (config.pipeline > 1) {
      repeated.reserve(bytes_.back().size() * static_cast<std::size_t>(config.pipeline));
      for (int i = 0; i < config.pipeline; ++i) repeated += bytes_.back();
    }
    repeated_.push_back(std::move(repeated));
    if (config.http2 || config.http3) http2_.emplace_back(config, r);
    names_.push_back(names.intern(r.name.empty() ? stats::default_request_name(r.method, r.path) : r.name));
    weights.push_back(r.weight);
  }
  // The views last: the strings no longer move.
  for (std::size_t i = 0; i < count; ++i) {
    const std::string& repeated = repeated_[i].empty() ? bytes_[i] : repeated_[i];
    http1_.push_back(proto::Http1Bytes{bytes_[i], repeated, strcasecmp(requests[i].method.c_str(), "HEAD") == 0});
  }
  order_ = TargetOrder(config.targets.empty() ? TargetsOrder::kRoundRobin : config.targets_order, weights);
}

}  // namespace pacer::targets
