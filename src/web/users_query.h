// POST /users's query (issue 27, per type in issue 42): what user count it asks
// for. `users=N` (every type, by the types' weights and fixed counts),
// `users=N&types=A,B` (N among the types named: Locust's user_classes), or
// `users=A:10,B:40` (a count per type). The names are compared as they are
// sent (undecoded); the run's control checks them against the file's types.
#pragma once

#include <string_view>

#include "core/expected.h"
#include "scenario/type_mix.h"

namespace pacer::web {

Result<scenario::MixRequest> parse_users_query(std::string_view query);

}  // namespace pacer::web
