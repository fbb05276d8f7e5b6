// See scenario_plan.h. The plan's shape (Lua):
//   plan = {leaves = {{fn=, name=}, ...}, types = {type, ...}, has_stop=, on_test_start=, on_test_stop=, on_request=, shape=}
//   type = {name=, weight=, fixed_count=, on_start=, on_stop=, root=set}
//   set  = {entries = {{weight=, leaf=i} or {weight=, set=set}, ...}, cum = {running sums}, total=,
//           sequential=, wait=, on_start=, on_stop=}
// A task set inherits its parent's wait, and its tags reach every task inside it
// (as Locust's @tag on a TaskSet). A set (or a user type) left with no task by
// the tag filter is dropped, as Locust drops it.
#include "scenario/scenario_plan.h"

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "script/lua_state.h"

namespace pacer::scenario {
namespace {

constexpr const char* kPlanLua = R"lua(
local def, tags, exclude, open_model = ...
local type, ipairs, pairs, tostring, error = type, ipairs, pairs, tostring, error
local function fail(message) error(message, 0) end
local function set_of(list)
  local s = {}
  for _, t in ipairs(list) do s[t] = true end
  return s
end
local want = #tags > 0 and set_of(tags) or nil
local drop = #exclude > 0 and set_of(exclude) or nil
local seen_tags, leaves, has_stop, qualify = {}, {}, false, false
local WAITS = "pacer.between(a, b), pacer.constant(s), pacer.constant_pacing(s), pacer.constant_throughput(n), " ..
              "a function of u or a number of seconds"

local function check_keys(t, known, where)
  for k in pairs(t) do
    if type(k) == "string" and not known[k] then
      local names = {}
      for name in pairs(known) do names[#names + 1] = name end
      table.sort(names)
      fail(where .. ": unknown field '" .. k .. "' (known: " .. table.concat(names, ", ") .. ")")
    end
  end
end
local function check_tags(t, where)
  if t == nil then return {} end
  if type(t) ~= "table" then fail(where .. ".tags must be a list of strings") end
  for _, v in ipairs(t) do
    if type(v) ~= "string" or v == "" then fail(where .. ".tags must be a list of non-empty strings") end
    seen_tags[v] = true
  end
  return t
end
local function concat(a, b)
  local out = {}
  for _, v in ipairs(a) do out[#out + 1] = v end
  for _, v in ipairs(b) do out[#out + 1] = v end
  return out
end
local function passes(list)
  local wanted, dropped = false, false
  for _, t in ipairs(list) do
    if want and want[t] then wanted = true end
    if drop and drop[t] then dropped = true end
  end
  return (not want or wanted) and not dropped
end
local function hook(t, field, where)
  local f = t[field]
  if f ~= nil and type(f) ~= "function" then fail(where .. "." .. field .. " must be a function") end
  return f
end
local function check_wait(w, where)
  if w == nil or type(w) == "function" or (type(w) == "number" and w >= 0 and w < math.huge) then return w end
  fail(where .. ".wait must be " .. WAITS)
end
local function positive(x) return type(x) == "number" and x > 0 and x < math.huge end

local SET_KEYS = set_of({"tasks", "wait", "on_start", "on_stop", "sequential", "tags", "name"})
local ENTRY_KEYS = set_of({"tags"})
local build_set
local function build_entry(e, where, set, inherited)
  if type(e) ~= "table" then fail(where .. " is a " .. type(e) .. ", not {weight, function}") end
  check_keys(e, ENTRY_KEYS, where)
  local weight, body, name = e[1], e[2], e[3]
  if not positive(weight) then fail(where .. ": the weight (first field) must be a positive number") end
  if set.sequential and weight ~= math.floor(weight) then
    fail(where .. ": in a sequence the first field is how many times in a row (a whole number)")
  end
  if name ~= nil and type(name) ~= "string" then fail(where .. ": the name (third field) must be a string") end
  local entry_tags = concat(inherited, check_tags(e.tags, where))
  if type(body) == "function" then
    if not passes(entry_tags) then return nil end
    if name == nil then
      local info = debug.getinfo(body, "S")
      name = info.short_src .. ":" .. info.linedefined
    end
    leaves[#leaves + 1] = {fn = body, name = name}
    return {weight = weight, leaf = #leaves}
  end
  if type(body) == "table" and body.tasks ~= nil then
    local sub = build_set(body, where, concat(entry_tags, check_tags(body.tags, where)), set.wait, SET_KEYS)
    return sub and {weight = weight, set = sub} or nil
  end
  fail(where .. ": the second field must be a function or a task set (pacer.taskset{tasks = ...} or pacer.sequence{...})")
end
build_set = function(t, where, inherited, inherited_wait, keys)
  check_keys(t, keys, where)
  if type(t.tasks) ~= "table" or #t.tasks == 0 then
    fail(where .. ".tasks is missing or empty (a list of {weight, function[, name]})")
  end
  local set = {entries = {}, cum = {}, total = 0, sequential = t.sequential == true,
               on_start = hook(t, "on_start", where), on_stop = hook(t, "on_stop", where)}
  if t.sequential ~= nil and type(t.sequential) ~= "boolean" then fail(where .. ".sequential must be true or false") end
  set.wait = check_wait(t.wait, where)
  if set.wait == nil then set.wait = inherited_wait end
  if set.on_stop then has_stop = true end
  for i, e in ipairs(t.tasks) do
    local entry = build_entry(e, where .. ".tasks[" .. i .. "]", set, inherited)
    if entry then
      set.entries[#set.entries + 1] = entry
      set.total = set.total + entry.weight
      set.cum[#set.entries] = set.total
    end
  end
  if #set.entries == 0 then return nil end
  return set
end

local TYPE_KEYS = set_of({"tasks", "wait", "on_start", "on_stop", "sequential", "tags", "name", "weight", "fixed_count",
                          "on_test_start", "on_test_stop", "on_request", "shape"})
-- The load shape (Locust's LoadTestShape): a function(t) returning users[,
-- spawn_rate] (nil: the run ends), or a list of stages, each {duration = s,
-- users = n[, spawn_rate = r]} for its own duration, after which the run ends.
-- In the open model (-R) the shape gives a rate of tasks per second: the
-- function returns it, a stage is {duration = s, rate = r}.
local STAGE_KEYS = open_model and set_of({"duration", "rate"}) or set_of({"duration", "users", "spawn_rate", "types"})
-- A stage's users: a whole number (for every type, or for those its `types`
-- lists), or a count per type by name ({A = 10, B = 40}).
local function check_stage_users(st, w)
  if type(st.users) == "table" then
    if st.types ~= nil then fail(w .. ": give users per type ({A = n, ...}) or types, not both") end
    for name, n in pairs(st.users) do
      if type(name) ~= "string" then fail(w .. ".users: a count per type is {TypeName = n, ...}") end
      if type(n) ~= "number" or n < 0 or n ~= math.floor(n) or n > 1e9 then
        fail(w .. ".users." .. name .. " must be a whole number >= 0")
      end
    end
    return
  end
  if type(st.users) ~= "number" or st.users < 0 or st.users ~= math.floor(st.users) or st.users > 1e9 then
    fail(w .. ".users must be a whole number >= 0, or a count per type ({A = n, ...})")
  end
  if st.types ~= nil then
    if type(st.types) ~= "table" or #st.types == 0 then fail(w .. ".types must be a list of user type names") end
    for _, name in ipairs(st.types) do
      if type(name) ~= "string" then fail(w .. ".types must be a list of user type names") end
    end
  end
end
local stage_type_names = {}  -- every type a stage names, checked once the types are known
local function build_shape(s, where)
  if s == nil or type(s) == "function" then return s end
  where = where .. ".shape"
  local form = open_model and "{duration = seconds, rate = tasks per second} (the open model, -R)"
                          or "{duration = seconds, users = n[, spawn_rate = r]}"
  if type(s) ~= "table" or #s == 0 then
    fail(where .. " must be a function(t) returning " .. (open_model and "a rate" or "users[, spawn_rate]") ..
         ", or a list of stages " .. form)
  end
  local stages, ends = {}, 0
  for i, st in ipairs(s) do
    local w = where .. "[" .. i .. "]"
    if type(st) ~= "table" then fail(w .. " is a " .. type(st) .. ", not " .. form) end
    if open_model and st.users ~= nil then
      fail(w .. ".users: in the open model (-R) a stage gives rate = tasks per second, not users")
    elseif not open_model and st.rate ~= nil then
      fail(w .. ".rate: a stage with a rate is the open model: add -R (the rate until the shape's first step)")
    end
    check_keys(st, STAGE_KEYS, w)
    if not positive(st.duration) then fail(w .. ".duration must be a positive number of seconds") end
    if open_model then
      if type(st.rate) ~= "number" or not (st.rate >= 0 and st.rate < math.huge) then
        fail(w .. ".rate must be a number of tasks per second >= 0")
      end
    else
      check_stage_users(st, w)
      for name in pairs(type(st.users) == "table" and st.users or {}) do stage_type_names[name] = w .. ".users" end
      for _, name in ipairs(st.types or {}) do stage_type_names[name] = w .. ".types" end
    end
    if st.spawn_rate ~= nil and not (type(st.spawn_rate) == "number" and st.spawn_rate >= 0 and st.spawn_rate < math.huge) then
      fail(w .. ".spawn_rate must be a number of users per second >= 0")
    end
    ends = ends + st.duration
    stages[i] = {ends = ends, value = open_model and st.rate or st.users, spawn_rate = st.spawn_rate, types = st.types}
  end
  return function(t)
    for _, st in ipairs(stages) do
      if t < st.ends then return st.value, st.spawn_rate, st.types end
    end
    return nil
  end
end
local function build_type(t, where, default_name)
  if type(t) ~= "table" then fail(where .. " is a " .. type(t) .. ", not a user definition (a table with tasks)") end
  local weight, fixed = t.weight, t.fixed_count
  if weight ~= nil and not positive(weight) then fail(where .. ".weight must be a positive number") end
  if fixed ~= nil and (type(fixed) ~= "number" or fixed < 0 or fixed ~= math.floor(fixed) or fixed > 1e9) then
    fail(where .. ".fixed_count must be a whole number >= 0")
  end
  if weight ~= nil and fixed ~= nil then fail(where .. ": give weight or fixed_count, not both") end
  if t.name ~= nil and type(t.name) ~= "string" then fail(where .. ".name must be a string") end
  local first_leaf = #leaves + 1
  local root = build_set(t, where, check_tags(t.tags, where), nil, TYPE_KEYS)
  local name = t.name or default_name
  if qualify then  -- several types: a task's row says whose it is ("shopper: index")
    for i = first_leaf, #leaves do leaves[i].name = name .. ": " .. leaves[i].name end
  end
  return {name = name, weight = weight or 1, fixed_count = fixed, root = root,
          on_start = root and root.on_start, on_stop = root and root.on_stop}
end

if type(def) ~= "table" then
  fail("the file must return the user definition (a table with tasks) or a list of them, not a " .. type(def))
end
local single = def.tasks ~= nil
local list = single and {def} or def
qualify = not single and #def > 1
if not single then
  if #def == 0 then
    fail("user.tasks is missing or empty (a list of {weight, function}), and the table is no list of user " ..
         "definitions either ({user1, user2, ...})")
  end
  check_keys(def, set_of({"on_test_start", "on_test_stop", "on_request", "shape"}), "the returned list")
end
local plan = {leaves = leaves, types = {}, on_test_start = hook(def, "on_test_start", single and "user" or "the list"),
              on_request = hook(def, "on_request", single and "user" or "the list"),
              on_test_stop = hook(def, "on_test_stop", single and "user" or "the list"),
              shape = build_shape(def.shape, single and "user" or "the list")}
for i, t in ipairs(list) do
  local where = single and "user" or ("users[" .. i .. "]")
  if not single and type(t) == "table" and (t.on_test_start or t.on_test_stop or t.on_request or t.shape) then
    fail(where .. ": on_test_start, on_test_stop, on_request and shape belong to the returned list, not to a user type")
  end
  local ty = build_type(t, where, single and "user" or (type(t) == "table" and t.name or ("user" .. i)))
  if ty.root then plan.types[#plan.types + 1] = ty end
end
for _, list_name in ipairs({"--tags", "--exclude-tags"}) do
  for _, tag in ipairs(list_name == "--tags" and tags or exclude) do
    if not seen_tags[tag] then fail(list_name .. ": no task or task set has the tag '" .. tag .. "'") end
  end
end
if #plan.types == 0 then fail("--tags/--exclude-tags leave no task to run (an empty tag selection)") end
do
  local named = {}
  for _, ty in ipairs(plan.types) do named[ty.name] = (named[ty.name] or 0) + 1 end
  for name, w in pairs(stage_type_names) do
    if named[name] == nil then fail(w .. ": no user type is named '" .. name .. "' (a type's name is its name field)") end
    if named[name] > 1 then fail(w .. ": two user types are named '" .. name .. "': give them different names") end
  end
end
for _, ty in ipairs(plan.types) do
  if ty.on_stop then has_stop = true end
end
plan.has_stop = has_stop
return plan
)lua";

void push_list(lua_State* L, const std::vector<std::string>& items) {
  lua_createtable(L, static_cast<int>(items.size()), 0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    lua_pushstring(L, items[i].c_str());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

bool field_is_true(lua_State* L, const char* name) {
  lua_getfield(L, -1, name);
  const bool yes = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  return yes;
}

// The plan at the top of the stack -> what C++ keeps of it.
PlanShape read_shape(lua_State* L) {
  PlanShape shape;
  lua_getfield(L, -1, "leaves");
  for (int i = 1; i <= static_cast<int>(lua_objlen(L, -1)); ++i) {
    lua_rawgeti(L, -1, i);
    lua_getfield(L, -1, "name");
    shape.task_names.emplace_back(lua_tostring(L, -1));
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "types");
  for (int i = 1; i <= static_cast<int>(lua_objlen(L, -1)); ++i) {
    lua_rawgeti(L, -1, i);
    UserType type;
    lua_getfield(L, -1, "name");
    type.name = lua_tostring(L, -1);
    lua_getfield(L, -2, "weight");
    type.weight = lua_tonumber(L, -1);
    lua_getfield(L, -3, "fixed_count");
    if (lua_isnumber(L, -1)) type.fixed_count = static_cast<int>(lua_tonumber(L, -1));
    lua_pop(L, 4);
    shape.types.push_back(std::move(type));
  }
  lua_pop(L, 1);
  shape.has_stop = field_is_true(L, "has_stop");
  shape.has_test_hooks = field_is_true(L, "on_test_start") || field_is_true(L, "on_test_stop");
  shape.has_load_shape = field_is_true(L, "shape");
  return shape;
}

}  // namespace

Result<PlanShape> build_plan(lua_State* L, const Config& config) {
  if (luaL_loadbuffer(L, kPlanLua, std::strlen(kPlanLua), "=pacer-plan") != 0) std::abort();
  lua_insert(L, -2);  // chunk, definition
  push_list(L, config.scenario_tags);
  push_list(L, config.scenario_exclude_tags);
  lua_pushboolean(L, config.is_open_model() ? 1 : 0);
  if (lua_pcall(L, 4, 1, 0) != 0) return bad_input("scenario " + config.scenario_path + ": " + script::pop_error(L));
  PlanShape shape = read_shape(L);
  if (shape.types.size() > 255) {
    lua_pop(L, 1);
    return bad_input(fmt::format("scenario {}: {} user types; at most 255", config.scenario_path, shape.types.size()));
  }
  return shape;
}

std::vector<std::uint8_t> assign_user_types(const std::vector<UserType>& types, std::size_t count) {
  std::vector<std::uint8_t> out;
  out.reserve(count);
  for (std::size_t t = 0; t < types.size() && out.size() < count; ++t) {
    for (int i = 0; i < types[t].fixed_count && out.size() < count; ++i) out.push_back(static_cast<std::uint8_t>(t));
  }
  double total = 0;
  for (const UserType& t : types) total += t.fixed_count < 0 ? t.weight : 0;
  if (!(total > 0)) return out;  // every type has a fixed count: no more users than they ask for
  std::vector<double> credit(types.size(), 0.0);
  while (out.size() < count) {
    std::size_t best = types.size();
    for (std::size_t t = 0; t < types.size(); ++t) {
      if (types[t].fixed_count >= 0) continue;
      credit[t] += types[t].weight;
      if (best == types.size() || credit[t] > credit[best]) best = t;
    }
    credit[best] -= total;
    out.push_back(static_cast<std::uint8_t>(best));
  }
  return out;
}

}  // namespace pacer::scenario
