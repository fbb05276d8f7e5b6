// Which user types a closed-model scenario runs, and how many of each (issue
// 42). A count given alone follows Locust's rules: the types with a fixed count
// first, in file order, then the weighted ones by weight (the counts that the
// first N ids of assign_user_types hold). A stage, a shape function and POST
// /users may also name the types the count is for (Locust's user_classes), or
// give a count per type. The main thread resolves what was asked into counts
// (engine::LoadControl); each worker takes its share of every type.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/expected.h"
#include "scenario/scenario_plan.h"

namespace pacer::scenario {

// Users per type, in plan order (the index is the type's).
using TypeCounts = std::vector<int>;

// What a stage, a shape function or POST /users asks for.
struct MixRequest {
  int users = 0;                                    // a count (alone, or for `types`)
  std::vector<std::string> types;                   // the types the count is for (empty: every type)
  std::vector<std::pair<std::string, int>> counts;  // or a count per type, by name (users is then their sum)
  bool by_type() const { return !types.empty() || !counts.empty(); }
};

// The counts of `users` users by the rules, among the types marked in
// `allowed` (empty: all). A type with a fixed count never gets more than it.
TypeCounts counts_by_rules(const std::vector<UserType>& types, int users, const std::vector<bool>& allowed = {});

// Resolves a request against the plan's types: an unknown or ambiguous type
// name, a negative count or a type named twice is an error naming it.
Result<TypeCounts> resolve_mix(const std::vector<UserType>& types, const MixRequest& request);

int total_users(const TypeCounts& counts);

// Worker `worker`'s share of the whole test's counts, of `workers` in all, each
// holding capacity(w) users at most (its slots). Type t's users go round the
// workers starting at worker t, so a change of one type's count moves no user of
// another; where that leaves a worker over its capacity, the excess goes to the
// first workers with room. Every worker computes the same split.
TypeCounts worker_share(const TypeCounts& test, int worker, int workers, const std::vector<int>& capacity);

// The order in which users of the types in `need` start: the types with a
// fixed count first, in file order (as the ids' types are assigned), then the
// others interleaved by their counts (smooth weighted round robin), so a
// ramp-up of 30 A and 10 B starts A, A, B, A, ... as Locust's dispatcher does.
std::vector<int> spawn_order(const std::vector<UserType>& types, const TypeCounts& need);

}  // namespace pacer::scenario
