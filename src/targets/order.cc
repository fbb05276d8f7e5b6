// The targets orders' set-up: the weighted cycle and each worker's start. See order.h.
#include "targets/order.h"

#include <algorithm>

namespace pacer::targets {

TargetOrder::TargetOrder(TargetsOrder order, std::span<const std::uint32_t> weights)
    : order_(order), target_count_(static_cast<std::uint32_t>(std::max<std::size_t>(weights.size(), 1))) {
  if (order != TargetsOrder::kWeighted) return;
  struct Copy {
    std::uint32_t target;
    std::uint32_t k;  // the k-th copy: at (2k + 1) / (2 weight)
  };
  std::vector<Copy> copies;
  for (std::uint32_t i = 0; i < weights.size(); ++i) {
    for (std::uint32_t k = 0; k < weights[i]; ++k) copies.push_back(Copy{i, k});
  }
  // Exact comparison of (2a+1)/w_a and (2b+1)/w_b by cross-multiplying (no rounding).
  std::stable_sort(copies.begin(), copies.end(), [&weights](const Copy& a, const Copy& b) {
    const unsigned __int128 left = static_cast<unsigned __int128>(2 * std::uint64_t{a.k} + 1) * weights[b.target];
    const unsigned __int128 right = static_cast<unsigned __int128>(2 * std::uint64_t{b.k} + 1) * weights[a.target];
    return left < right;
  });
  cycle_.reserve(copies.size());
  for (const Copy& c : copies) cycle_.push_back(c.target);
}

TargetPicker::TargetPicker(const TargetOrder& order, std::uint64_t stream, std::uint64_t streams, std::uint64_t seed)
    : kind_(order.order()) {
  streams = std::max<std::uint64_t>(streams, 1);
  switch (kind_) {
    case TargetsOrder::kRoundRobin:
      count_ = order.target_count();
      position_ = static_cast<std::uint32_t>(stream % count_);
      break;
    case TargetsOrder::kWeighted:
      if (order.cycle().empty()) {  // no weights given: one request
        kind_ = TargetsOrder::kRoundRobin;
        break;
      }
      cycle_ = order.cycle().data();
      count_ = static_cast<std::uint32_t>(std::max<std::size_t>(order.cycle().size(), 1));
      position_ = static_cast<std::uint32_t>(stream * count_ / streams % count_);
      break;
    case TargetsOrder::kRandom:
      count_ = order.target_count();
      // Distinct streams per worker: the seed and the stream index mixed.
      state_ = seed * 0x9E3779B97F4A7C15ULL + stream * 0xD1B54A32D192ED03ULL + 1;
      break;
  }
}

}  // namespace pacer::targets
