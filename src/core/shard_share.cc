// ShardShare's labels; see the header.
#include "core/shard_share.h"

#include <algorithm>

#include <fmt/format.h>

namespace pacer {

std::string ShardShare::label() const {
  if (!is_part()) return "";
  if (covered == 1 && missing.empty()) return fmt::format("shard {} of {}", index, count);
  std::string present;
  for (int i = 0; i < count; ++i) {
    if (std::find(missing.begin(), missing.end(), i) != missing.end()) continue;
    present += fmt::format("{}{}", present.empty() ? "" : ", ", i);
  }
  // One shard reads as a shard run names itself ("shard 0 of 2"), whatever made it.
  if (covered == 1) return fmt::format("shard {} of {}", present, count);
  return fmt::format("shards {} of {}", present, count);
}

std::string ShardShare::describe() const {
  if (!is_part()) return "";
  std::string out = label() + ": ";
  switch (load_model) {
    case LoadModel::kClosed: break;
    case LoadModel::kConstant:
      out += fmt::format("{:g} of {:g} requests/s, ", rate(test_rate_per_s), test_rate_per_s);
      break;
    case LoadModel::kRamp:
      out += fmt::format("{:g} to {:g} of {:g} to {:g} requests/s, ", rate(test_rate_per_s),
                         rate(test_rate_end_per_s), test_rate_per_s, test_rate_end_per_s);
      break;
    case LoadModel::kStages: out += fmt::format("{} of {} of each stage's rate, ", covered, count); break;
  }
  if (requests && test_requests) out += fmt::format("{} of {} requests, ", *requests, *test_requests);
  if (test_connections > 0) {
    out += fmt::format("{} of {} connections", connections, test_connections);
  } else {
    out += fmt::format("{} connections", connections);  // a report from before the whole test's -c was written
  }
  return out;
}

ShardShare shard_share(const Config& config) {
  ShardShare s;
  s.count = config.shard_count;
  s.index = config.shard_index;
  s.connections = config.connections;
  s.test_connections = config.test_connections > 0 ? config.test_connections : config.connections;
  s.requests = config.request_count;
  s.test_requests = config.test_request_count ? config.test_request_count : config.request_count;
  s.load_model = config.load_model;
  s.test_rate_per_s = config.rate_per_s;
  s.test_rate_end_per_s = config.rate_end_per_s;
  return s;
}

}  // namespace pacer
