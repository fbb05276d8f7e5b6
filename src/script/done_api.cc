// See done_api.h.
#include "script/done_api.h"

#include <cstdint>
#include <cstring>

namespace pacer::script {

namespace {

constexpr const char* kStatsType = "wrk.stats";

struct StatsObject {
  const stats::Histogram* histogram;
  double divisor;
};

StatsObject& check_stats(lua_State* L) { return *static_cast<StatsObject*>(luaL_checkudata(L, 1, kStatsType)); }

// The i-th (1-based) distinct recorded value, scaled, and its count; (0, 0) past the end.
void push_value_at(lua_State* L, const StatsObject& s, std::int64_t wanted, bool with_count) {
  std::int64_t seen = 0;
  double value = 0;
  std::int64_t count = 0;
  if (wanted >= 1) {
    s.histogram->for_each_recorded([&](std::int64_t lo, std::int64_t, std::int64_t n) {
      if (++seen == wanted) {
        value = static_cast<double>(lo) / s.divisor;
        count = n;
      }
    });
  }
  lua_pushnumber(L, value);
  if (with_count) lua_pushnumber(L, static_cast<double>(count));
}

int stats_percentile(lua_State* L) {
  const StatsObject& s = check_stats(L);
  const double p = luaL_checknumber(L, 2);
  if (p < 0 || p > 100) return luaL_error(L, "percentile must be between 0 and 100, got %f", p);
  lua_pushnumber(L, static_cast<double>(s.histogram->value_at_percentile(p)) / s.divisor);
  return 1;
}

int stats_call(lua_State* L) {
  const StatsObject& s = check_stats(L);
  push_value_at(L, s, static_cast<std::int64_t>(luaL_checknumber(L, 2)), true);
  return 2;
}

int stats_len(lua_State* L) {
  const StatsObject& s = check_stats(L);
  std::int64_t distinct = 0;
  s.histogram->for_each_recorded([&](std::int64_t, std::int64_t, std::int64_t) { ++distinct; });
  lua_pushnumber(L, static_cast<double>(distinct));
  return 1;
}

int stats_index(lua_State* L) {
  const StatsObject& s = check_stats(L);
  if (lua_type(L, 2) == LUA_TNUMBER) {
    push_value_at(L, s, static_cast<std::int64_t>(lua_tonumber(L, 2)), false);
    return 1;
  }
  const char* key = luaL_checkstring(L, 2);
  const stats::Histogram& h = *s.histogram;
  if (std::strcmp(key, "min") == 0) {
    lua_pushnumber(L, static_cast<double>(h.min()) / s.divisor);
  } else if (std::strcmp(key, "max") == 0) {
    lua_pushnumber(L, static_cast<double>(h.max()) / s.divisor);
  } else if (std::strcmp(key, "mean") == 0) {
    lua_pushnumber(L, h.mean() / s.divisor);
  } else if (std::strcmp(key, "stdev") == 0) {
    lua_pushnumber(L, h.stdev() / s.divisor);
  } else if (std::strcmp(key, "count") == 0) {
    lua_pushnumber(L, static_cast<double>(h.total_count()));  // pacer: samples recorded
  } else if (std::strcmp(key, "percentile") == 0) {
    lua_pushcfunction(L, &stats_percentile);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

void set_number(lua_State* L, const char* field, std::uint64_t value) {
  lua_pushnumber(L, static_cast<double>(value));
  lua_setfield(L, -2, field);
}

}  // namespace

void push_summary(lua_State* L, const report::RunReport& report) {
  const stats::Counters& c = report.counters;
  lua_createtable(L, 0, 5);
  lua_pushnumber(L, static_cast<double>(report.measured_ns / kNsPerUs));  // whole microseconds, as wrk
  lua_setfield(L, -2, "duration");
  set_number(L, "requests", c.responses);
  set_number(L, "bytes", c.bytes_read);
  lua_createtable(L, 0, 10);
  set_number(L, "connect", c.errors.connect);
  set_number(L, "read", c.errors.read);
  set_number(L, "write", c.errors.write);
  set_number(L, "status", c.errors.status);
  set_number(L, "timeout", c.errors.timeout);
  set_number(L, "parse", c.errors.parse);  // pacer's classes beyond wrk's five
  set_number(L, "tls", c.errors.tls);
  set_number(L, "deadline", c.errors.deadline);
  set_number(L, "backlog", c.errors.backlog);
  set_number(L, "unsent", c.errors.unsent);
  set_number(L, "redirect", c.errors.redirect);
  set_number(L, "decode", c.errors.decode);
  lua_setfield(L, -2, "errors");
  lua_newtable(L);  // pacer: responses by status code, without defining response()
  for (std::size_t code = 0; code < c.status_counts.size(); ++code) {
    if (c.status_counts[code] == 0) continue;
    lua_pushnumber(L, static_cast<double>(c.status_counts[code]));
    lua_rawseti(L, -2, static_cast<int>(code));
  }
  lua_setfield(L, -2, "status");
}

void push_stats(lua_State* L, const stats::Histogram& histogram, double divisor) {
  auto* object = static_cast<StatsObject*>(lua_newuserdata(L, sizeof(StatsObject)));
  *object = StatsObject{&histogram, divisor};
  if (luaL_newmetatable(L, kStatsType) != 0) {
    lua_pushcfunction(L, &stats_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, &stats_call);
    lua_setfield(L, -2, "__call");
    lua_pushcfunction(L, &stats_len);
    lua_setfield(L, -2, "__len");
  }
  lua_setmetatable(L, -2);
}

}  // namespace pacer::script
