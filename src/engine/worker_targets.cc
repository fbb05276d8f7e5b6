// Which request a slot sends next: its target (--targets-order) and its name
// (the report's Endpoints). choose_request runs once per request on the send
// path: no lock, no allocation. See worker.h.
#include "engine/worker.h"

namespace pacer::engine {

namespace {

// A pipelined batch mixing targets is gathered into one write of at most this.
constexpr std::size_t kGatherBufferBytes = 64 * 1024;

}  // namespace

void Worker::prepare_targets() {
  const targets::RequestSet& requests = *shared_.requests;
  const Config& config = *shared_.config;
  // Workers of all shards draw from distinct streams: worker w of shard s is
  // stream s*W + w, as for the open model's arrivals.
  const auto streams = static_cast<std::uint64_t>(shared_.worker_count) * static_cast<std::uint64_t>(config.shard_count);
  const auto stream = static_cast<std::uint64_t>(config.shard_index) * static_cast<std::uint64_t>(shared_.worker_count) +
                      static_cast<std::uint64_t>(worker_index_);
  picker_ = targets::TargetPicker(requests.order(), stream, streams, config.seed);
  // An engine that holds writes past the call (io_uring) must not be handed the
  // shared gather buffer (another connection would overwrite a queued send):
  // mixed batches then go out as runs of one target each, from their own bytes.
  if (requests.varies() && shared_.http2_request == nullptr && shared_.slots_per_connection > 1 &&
      !engine_->holds_writes()) {
    gather_buffer_ = std::make_unique<char[]>(kGatherBufferBytes);
    gather_buffer_bytes_ = kGatherBufferBytes;
  }
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
