// The `wrk` table every script state starts with, as in wrk 4.x: the target's
// fields (scheme, host, port, method, path, headers, body), wrk.format,
// wrk.lookup, wrk.connect, and the internal wrk.setup/wrk.init/wrk.request that
// the host and the workers call. Address values ("wrk.addr" userdata) are
// net::Address copies. Used on the main thread while states are built.
#pragma once

#include <lua.hpp>

#include <string>

#include "core/config.h"
#include "core/expected.h"
#include "net/address.h"

namespace pacer::script {

// Fills a fresh state: the wrk table from config (-m, -H, -b and
// --disable-keepalive show in wrk.method, wrk.headers and wrk.body), then runs
// the script file config.script_path. When config.stdout_is_data(), the
// script's print and io.write (io.stdout) go to stderr. A syntax or top-level runtime error, or an
// unreadable file, is a kBadInput error naming the file and line.
Status load_wrk_script(lua_State* L, const Config& config);

// Pushes an address userdata ("wrk.addr"; tostring gives "127.0.0.1:8080").
void push_address(lua_State* L, const net::Address& address);
// The address at index, or a Lua error naming the argument.
const net::Address& check_address(lua_State* L, int index);

}  // namespace pacer::script
