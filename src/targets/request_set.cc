// Building the run's requests. See request_set.h.
#include "targets/request_set.h"

#include <strings.h>

#include <algorithm>
#include <array>

namespace pacer::targets {

namespace {

// RFC 9110 9.2.2: a client may repeat these automatically.
bool idempotent_without_body(const RequestTarget& r) {
  static constexpr std::array<const char*, 6> kIdempotent{"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"};
  if (r.body && !r.body->empty()) return false;
  return std::ranges::any_of(kIdempotent, [&](const char* m) { return strcasecmp(r.method.c_str(), m) == 0; });
}

}  // namespace

RequestSet::RequestSet(const Config& config, stats::NameTable& names) {
  const std::size_t count = config.targets.empty() ? 1 : config.targets.size();
  // HTTP/2 and HTTP/3 send the header lists (HTTP/3 builds on them); HTTP/1.1
  // the bytes. Each request's body is held once beside the config's: in its
  // HTTP/1.1 bytes, or in its HTTP/2 request.
  const bool http1 = !config.http2 && !config.http3;
  bytes_.reserve(http1 ? count : 0);
  resendable_.reserve(http1 ? count : 0);  // reserved: the views taken below stay valid
  http1_.reserve(http1 ? count : 0);
  http2_.reserve(http1 ? 0 : count);
  names_.reserve(count);
  std::vector<std::uint32_t> weights;
  weights.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const RequestTarget r = config.targets.empty() ? proto::command_line_request(config)
                                                   : proto::with_command_line(config, config.targets[i]);
    if (http1) add_http1(config, r);
    else http2_.emplace_back(config, r);
    names_.push_back(names.intern(r.name.empty() ? stats::default_request_name(r.method, r.path) : r.name));
    weights.push_back(r.weight);
  }
  order_ = TargetOrder(config.targets.empty() ? TargetsOrder::kRoundRobin : config.targets_order, weights);
}

void RequestSet::add_http1(const Config& config, const RequestTarget& r) {
  const std::string built = proto::build_request(config, r);
  resendable_.push_back(idempotent_without_body(r) ? 1 : 0);
  std::string& stored = bytes_.emplace_back();
  // With --pipeline N the request's bytes N times in a row (a batch is one write);
  // the single request is the first of them.
  const auto copies = static_cast<std::size_t>(std::max(config.pipeline, 1));
  stored.reserve(built.size() * copies);
  for (std::size_t i = 0; i < copies; ++i) stored += built;
  http1_.push_back(proto::Http1Bytes{std::string_view(stored).substr(0, built.size()), stored,
                                     strcasecmp(r.method.c_str(), "HEAD") == 0});
}

}  // namespace pacer::targets
