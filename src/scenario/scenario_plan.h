// A scenario file's definition made into a plan (issue 27): one user type or
// several (each with a weight or a fixed count), their tasks, nested task sets
// and sequences, tags filtered by --tags/--exclude-tags, waits and hooks. The
// checks and the plan are Lua (kPlanLua): the plan is the table the prelude's
// user loop walks. Every mistake is kBadInput naming the file and the field.
// Main thread or a worker's, before the run; no allocation after it.
#pragma once

#include <lua.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::scenario {

struct UserType {
  std::string name;
  double weight = 1;       // share of the users without a fixed count
  int fixed_count = -1;    // -1: by weight
};

struct PlanShape {
  std::vector<std::string> task_names;  // every leaf task, in plan order (the Tasks table's rows)
  std::vector<UserType> types;          // the user types left after the tag filter, in file order
  std::vector<std::string> type_names() const {
    std::vector<std::string> out;
    for (const UserType& t : types) out.push_back(t.name);
    return out;
  }
  bool has_stop = false;                // some on_stop (a user's or a task set's)
  bool has_test_hooks = false;          // on_test_start or on_test_stop
  bool has_load_shape = false;          // shape (a function, or stages made one)
};

// The file's returned value at the top of L's stack is replaced by the plan.
Result<PlanShape> build_plan(lua_State* L, const Config& config);

// The type of each user id in [0, count): fixed counts first, in file order,
// then the weighted types interleaved so that every prefix is as close to the
// weights as whole users allow (smooth weighted round robin). Indexes into types.
std::vector<std::uint8_t> assign_user_types(const std::vector<UserType>& types, std::size_t count);

}  // namespace pacer::scenario
