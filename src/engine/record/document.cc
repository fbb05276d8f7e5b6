// See document.h.
#include "engine/record/document.h"

namespace pacer::engine {

DocumentLengths::DocumentLengths(std::size_t name_limit)
    : limit_(name_limit), lengths_(std::make_unique<std::atomic<std::int64_t>[]>(name_limit)) {
  for (std::size_t i = 0; i < limit_; ++i) lengths_[i].store(-1, std::memory_order_relaxed);
}

std::optional<std::uint64_t> DocumentLengths::of(stats::NameId name) const {
  if (name >= limit_) return std::nullopt;
  const std::int64_t bytes = lengths_[name].load(std::memory_order_relaxed);
  if (bytes < 0) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

void FirstResponse::merge(const FirstResponse& other) {
  if (other.response_ns >= 0 && (response_ns < 0 || other.response_ns < response_ns)) {
    response_ns = other.response_ns;
    server = other.server;
  }
  if (other.document_ns >= 0 && (document_ns < 0 || other.document_ns < document_ns)) {
    document_ns = other.document_ns;
    document_name = other.document_name;
  }
}

}  // namespace pacer::engine
