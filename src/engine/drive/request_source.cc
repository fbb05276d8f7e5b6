// See request_source.h.
#include "engine/drive/request_source.h"

#include "engine/drive/origin_links.h"
#include "scenario/users.h"

namespace pacer::engine {

namespace {

RequestSource::Kind kind_of(const WorkerScript* script, const scenario::Users* users) {
  if (users != nullptr) return RequestSource::Kind::kUser;
  if (script == nullptr) return RequestSource::Kind::kTargets;
  return script->custom_bytes() ? RequestSource::Kind::kScriptRequest : RequestSource::Kind::kStaticScript;
}

}  // namespace

RequestSource::RequestSource(const SharedRun& shared, int worker_index, WorkerScript* script, scenario::Users* users,
                             const OriginLinks* links)
    : kind_(kind_of(script, users)), requests_(*shared.requests), script_(script), users_(users), links_(links) {
  const LoadOptions& load = shared.options.load;
  // Workers of all shards draw from distinct streams: worker w of shard s is
  // stream s*W + w, as for the open model's arrivals.
  const auto streams = static_cast<std::uint64_t>(shared.worker_count) * static_cast<std::uint64_t>(load.shard_count);
  const auto stream = static_cast<std::uint64_t>(load.shard_index) * static_cast<std::uint64_t>(shared.worker_count) +
                      static_cast<std::uint64_t>(worker_index);
  picker_ = targets::TargetPicker(requests_.order(), stream, streams, load.seed);
}

bool RequestSource::next(Connection& c, RequestSlot& slot, OutgoingRequest& out) {
  switch (kind_) {
    case Kind::kTargets:
      slot.target = picker_.next();
      slot.name = requests_.name(slot.target);
      return true;
    case Kind::kStaticScript:
      slot.target = 0;
      slot.name = script_->static_name();
      return true;
    case Kind::kScriptRequest:
      // request() supplies the bytes (and may pipeline several requests) and the name.
      return script_->next_request(c, out.bytes, out.batch, slot.name);
    case Kind::kUser: {
      // The user's own request, named by the run's name table.
      const int user = links_ != nullptr ? links_->user_of(c) : c.index;
      const scenario::User& u = users_->user(user);
      out.bytes = users_->request_bytes(user);
      out.batch.head_bits = u.head ? 1 : 0;
      slot.name = u.name;
      return true;
    }
  }
  return false;
}

}  // namespace pacer::engine
