// See type_mix.h.
#include "scenario/type_mix.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace pacer::scenario {

TypeCounts counts_by_rules(const std::vector<UserType>& types, int users, const std::vector<bool>& allowed) {
  std::vector<UserType> chosen;
  std::vector<int> index_of;
  for (std::size_t t = 0; t < types.size(); ++t) {
    if (!allowed.empty() && !allowed[t]) continue;
    chosen.push_back(types[t]);
    index_of.push_back(static_cast<int>(t));
  }
  TypeCounts out(types.size(), 0);
  if (users <= 0) return out;
  for (const std::uint8_t t : assign_user_types(chosen, static_cast<std::size_t>(users))) ++out[index_of[t]];
  return out;
}

Result<TypeCounts> resolve_mix(const std::vector<UserType>& types, const MixRequest& request) {
  const auto find = [&](const std::string& name) -> Result<std::size_t> {
    std::size_t found = types.size();
    for (std::size_t t = 0; t < types.size(); ++t) {
      if (types[t].name != name) continue;
      if (found != types.size()) return bad_argument(fmt::format("user type '{}' names two types: give them different names", name));
      found = t;
    }
    if (found == types.size()) {
      std::string known;
      for (const UserType& t : types) known += (known.empty() ? "" : ", ") + t.name;
      return bad_argument(fmt::format("no user type is named '{}' (the types: {})", name, known));
    }
    return found;
  };
  if (!request.counts.empty()) {
    TypeCounts out(types.size(), 0);
    std::vector<bool> given(types.size(), false);
    for (const auto& [name, count] : request.counts) {
      auto t = find(name);
      if (!t) return t.error();
      if (given[*t]) return bad_argument(fmt::format("user type '{}' is given twice", name));
      if (count < 0) return bad_argument(fmt::format("user type '{}': {} users is negative", name, count));
      given[*t] = true;
      out[*t] = count;
    }
    return out;
  }
  if (request.users < 0) return bad_argument(fmt::format("{} users is negative", request.users));
  std::vector<bool> allowed;
  if (!request.types.empty()) {
    allowed.assign(types.size(), false);
    for (const std::string& name : request.types) {
      auto t = find(name);
      if (!t) return t.error();
      allowed[*t] = true;
    }
  }
  return counts_by_rules(types, request.users, allowed);
}

int total_users(const TypeCounts& counts) { return std::accumulate(counts.begin(), counts.end(), 0); }

TypeCounts worker_share(const TypeCounts& test, int worker, int workers, const std::vector<int>& capacity) {
  const std::size_t types = test.size();
  if (workers <= 1) return test;
  const auto w_count = static_cast<std::size_t>(workers);
  // share[w * types + t]: type t's users k = 0..n-1 go to worker (k + t) % workers.
  std::vector<int> share(w_count * types, 0);
  for (std::size_t t = 0; t < types; ++t) {
    const int n = test[t];
    for (std::size_t w = 0; w < w_count; ++w) {
      const int first = static_cast<int>((w + w_count - t % w_count) % w_count);  // the first k that lands on w
      share[w * types + t] = n > first ? (n - first - 1) / workers + 1 : 0;
    }
  }
  // A worker past its capacity gives its last types' users to the first with room.
  const auto held = [&](std::size_t w) {
    return std::accumulate(share.begin() + static_cast<std::ptrdiff_t>(w * types),
                           share.begin() + static_cast<std::ptrdiff_t>((w + 1) * types), 0);
  };
  const auto room = [&](std::size_t w) { return w < capacity.size() ? capacity[w] - held(w) : 0; };
  for (std::size_t w = 0; w < w_count; ++w) {
    for (std::size_t t = types; t-- > 0 && room(w) < 0;) {
      for (std::size_t to = 0; to < w_count && room(w) < 0 && share[w * types + t] > 0; ++to) {
        const int moved = std::min({-room(w), std::max(room(to), 0), share[w * types + t]});
        share[w * types + t] -= moved;
        share[to * types + t] += moved;
      }
    }
  }
  const auto w = static_cast<std::size_t>(worker);
  return TypeCounts(share.begin() + static_cast<std::ptrdiff_t>(w * types),
                    share.begin() + static_cast<std::ptrdiff_t>((w + 1) * types));
}

std::vector<int> spawn_order(const std::vector<UserType>& types, const TypeCounts& need) {
  // The ids' own order (assign_user_types) over the users needed: each type's
  // count its fixed count, or its weight, so every type gets its count.
  std::vector<UserType> wanted;
  std::vector<int> index_of;
  for (std::size_t t = 0; t < need.size(); ++t) {
    if (need[t] <= 0) continue;
    const bool fixed = t < types.size() && types[t].fixed_count >= 0;
    wanted.push_back(UserType{{}, static_cast<double>(need[t]), fixed ? need[t] : -1});
    index_of.push_back(static_cast<int>(t));
  }
  std::vector<int> order;
  for (const std::uint8_t t : assign_user_types(wanted, static_cast<std::size_t>(total_users(need)))) {
    order.push_back(index_of[t]);
  }
  return order;
}

}  // namespace pacer::scenario
