// Which request a slot sends next: its target (--targets-order) and its name
// (the report's Endpoints). choose_request runs once per request on the send
// path: no lock, no allocation. See worker.h.
#include "engine/worker.h"

namespace pacer::engine {

void Worker::prepare_targets() {
  const targets::RequestSet& requests = *shared_.requests;
  const Config& config = *shared_.config;
  // Workers of all shards draw from distinct streams: worker w of shard s is
  // stream s*W + w, as for the open model's arrivals.
  const auto streams = static_cast<std::uint64_t>(shared_.worker_count) * static_cast<std::uint64_t>(config.shard_count);
  const auto stream = static_cast<std::uint64_t>(config.shard_index) * static_cast<std::uint64_t>(shared_.worker_count) +
                      static_cast<std::uint64_t>(worker_index_);
  picker_ = targets::TargetPicker(requests.order(), stream, streams, config.seed);
}

void Worker::choose_request(RequestSlot& slot) {
  if (script_) {  // a static script's request (custom bytes name themselves in send_request)
    slot.target = 0;
    slot.name = script_->static_name();
    return;
  }
  slot.target = picker_.next();
  slot.name = shared_.requests->name(slot.target);
}

}  // namespace pacer::engine
