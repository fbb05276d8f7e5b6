// A scenario user's cookie jar seen from the scenario (docs/scenarios.md,
// "Cookies"): its Set-Cookie headers stored after each response, its Cookie
// header built into each request, and `u.cookies` for the file's code. The jar's
// rules are cookie/cookie_jar.h's; this is only the glue. One worker thread.
#pragma once

#include <lua.hpp>

#include <string>
#include <string_view>

namespace pacer::scenario {

class RequestContext;
class Users;
struct User;

// Appends u's Cookie header line to `out` for a request to `path`: the -H (or
// --cookie) pairs in `given` first, then the jar's that go to the path. Nothing
// when both are empty.
void append_cookie_line(std::string& out, const RequestContext& context, const User& u, std::string_view path,
                        std::string_view given);

// Pushes the table `u.cookies` is (get, set, delete, clear, all), each function
// acting on the running user's jar; callable as u.cookies.get(name) or
// u.cookies:get(name).
void push_cookie_api(lua_State* L, Users* users);

}  // namespace pacer::scenario
