// See wrk_api.h. The Lua half of the API (format, init, setup) is a small
// prelude with wrk's semantics: the default request is built once, after
// init(args), and wrk.request returns it until a script defines request().
#include "script/wrk_api.h"

#include <netdb.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/clock.h"
#include "proto/header_rules.h"
#include "proto/uri_reference.h"
#include "script/lua_state.h"

namespace pacer::script {

namespace {

constexpr const char* kAddressType = "wrk.addr";
constexpr TimeNs kConnectCheckTimeoutNs = 2 * kNsPerS;  // wrk.connect: a blocking check

constexpr const char* kPrelude = R"lua(
local wrk = {
  scheme = "http", host = "localhost", port = nil, method = "GET", path = "/",
  headers = {}, body = nil, thread = nil,
}

-- Called by the host once per thread, in the setup state.
function wrk.setup(thread)
  if type(setup) == "function" then setup(thread) end
end

-- Called once in each thread's state: Host header, the user's init(args), and
-- the request every connection sends unless request() is defined.
function wrk.init(args)
  if not wrk.headers["Host"] then
    local host = wrk.host
    if host:find(":", 1, true) then host = "[" .. host .. "]" end
    if wrk.port then host = host .. ":" .. wrk.port end
    wrk.headers["Host"] = host
  end
  if type(init) == "function" then init(args) end
  local req = wrk.format()
  wrk.request = function() return req end
end

-- One HTTP/1.1 request as a string; nil arguments take wrk's fields. As in wrk,
-- the headers table gets Host (if missing) and Content-Length (if a body).
function wrk.format(method, path, headers, body)
  method = method or wrk.method
  path = path or wrk.path
  wrk.check_path(path)  -- the URL cap -d, --targets and scenario paths follow
  headers = headers or wrk.headers
  body = body or wrk.body
  if not headers["Host"] then headers["Host"] = wrk.headers["Host"] end
  headers["Content-Length"] = body and string.len(body)
  local lines = { method .. " " .. path .. " HTTP/1.1" }
  local hosts = 0
  for name, value in pairs(headers) do
    value = tostring(value)
    wrk.check_header(name, value, body)  -- the rule -H and --targets follow
    if type(name) == "string" and name:lower() == "host" then
      hosts = hosts + 1
      if hosts == 2 then error("wrk.format: a second Host header: a server must answer 400 to two (RFC 9112)", 2) end
    end
    lines[#lines + 1] = name .. ": " .. value
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = body or ""
  return table.concat(lines, "\r\n")
end

return wrk
)lua";

// Run before the script when stdout carries pacer's JSON or time series: what
// the script prints (print, io.write, io.stdout) goes to stderr instead, so
// stdout stays parseable. print keeps Lua's format: tab-separated, one line.
constexpr const char* kOutputToStderr = R"lua(
local stderr, select, tostring, concat = io.stderr, select, tostring, table.concat
io.stdout = stderr
io.output(stderr)
function print(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  stderr:write(concat(parts, "\t"), "\n")
end
)lua";

// Runs one of the chunks above, leaving `results` values on the stack; on
// failure the error message is on the stack instead.
bool run_builtin(lua_State* L, const char* code, int results) {
  return luaL_loadbuffer(L, code, std::strlen(code), "=wrk") == 0 && lua_pcall(L, 0, results, 0) == 0;
}

int address_tostring(lua_State* L) {
  lua_pushstring(L, check_address(L, 1).to_string().c_str());
  return 1;
}

// wrk.lookup(host, service): every address of host:service, as addr values.
int wrk_lookup(lua_State* L) {
  const char* host = luaL_checkstring(L, 1);
  const char* service = luaL_checkstring(L, 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host, service, &hints, &found); rc != 0) {
    return luaL_error(L, "unable to resolve %s:%s: %s", host, service, gai_strerror(rc));
  }
  std::vector<net::Address> addresses;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    net::Address address;
    std::memcpy(&address.storage, a->ai_addr, a->ai_addrlen);
    address.length = a->ai_addrlen;
    addresses.push_back(address);
  }
  ::freeaddrinfo(found);
  lua_createtable(L, static_cast<int>(addresses.size()), 0);
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    push_address(L, addresses[i]);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}

// wrk.connect(addr): true if a TCP connection to addr succeeds (within 2 s).
int wrk_connect(lua_State* L) {
  const net::Address& address = check_address(L, 1);
  lua_pushboolean(L, net::first_connectable({address}, kConnectCheckTimeoutNs).ok());
  return 1;
}

// wrk.check_header(name, value, body): a Lua error when proto/header_rules.h
// refuses the header for a request with that body (nil: none).
int wrk_check_header(lua_State* L) {
  std::size_t name_len = 0;
  std::size_t value_len = 0;
  if (lua_type(L, 1) != LUA_TSTRING) return luaL_error(L, "wrk.format: header names must be strings");
  const char* name = lua_tolstring(L, 1, &name_len);
  const char* value = luaL_checklstring(L, 2, &value_len);
  proto::HeaderContext context;
  if (lua_type(L, 3) == LUA_TSTRING) context.body_bytes = lua_objlen(L, 3);
  {
    const std::string problem = proto::header_problem({name, name_len}, {value, value_len}, context);
    if (problem.empty()) return 0;
    lua_pushstring(L, "wrk.format: ");
    lua_pushlstring(L, problem.data(), problem.size());
  }
  lua_concat(L, 2);
  return lua_error(L);
}

// wrk.check_path(path): a Lua error (at wrk.format's caller) when the path is past
// the URL cap (proto::kMaxUrlBytes) that the command line and --targets keep.
int wrk_check_path(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING && lua_objlen(L, 1) > proto::kMaxUrlBytes) {
    luaL_where(L, 2);  // 0: this function, 1: wrk.format, 2: its caller
    lua_pushfstring(L, "wrk.format: the path is %d bytes, past the URL cap of %d bytes",
                    static_cast<int>(lua_objlen(L, 1)), static_cast<int>(proto::kMaxUrlBytes));
    lua_concat(L, 2);
    return lua_error(L);
  }
  return 0;
}

void set_string(lua_State* L, const char* field, const std::string& value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, field);
}

// The wrk table's fields from the command line (wrk.port stays nil unless the
// URL names a port, as in wrk).
void fill_wrk_table(lua_State* L, const Config& config) {
  set_string(L, "scheme", config.target.scheme);
  set_string(L, "host", config.target.host);
  if (config.target.has_explicit_port) set_string(L, "port", std::to_string(config.target.port));
  set_string(L, "method", config.method);
  set_string(L, "path", config.target.path);
  if (config.body) set_string(L, "body", *config.body);
  lua_getfield(L, -1, "headers");
  for (const Header& h : config.headers) set_string(L, h.name.c_str(), h.value);
  if (!config.keep_alive) set_string(L, "Connection", "close");
  lua_pop(L, 1);
  lua_pushcfunction(L, &wrk_lookup);
  lua_setfield(L, -2, "lookup");
  lua_pushcfunction(L, &wrk_connect);
  lua_setfield(L, -2, "connect");
  lua_pushcfunction(L, &wrk_check_header);
  lua_setfield(L, -2, "check_header");
  lua_pushcfunction(L, &wrk_check_path);
  lua_setfield(L, -2, "check_path");
}

}  // namespace

void push_address(lua_State* L, const net::Address& address) {
  void* block = lua_newuserdata(L, sizeof(net::Address));
  std::memcpy(block, &address, sizeof(net::Address));  // plain bytes: sockaddr_storage + length
  if (luaL_newmetatable(L, kAddressType) != 0) {
    lua_pushcfunction(L, &address_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_setmetatable(L, -2);
}

const net::Address& check_address(lua_State* L, int index) {
  return *static_cast<const net::Address*>(luaL_checkudata(L, index, kAddressType));
}

Status load_wrk_script(lua_State* L, const Config& config) {
  if (!run_builtin(L, kPrelude, 1) || (config.stdout_is_data() && !run_builtin(L, kOutputToStderr, 0))) {
    return runtime_error("internal error in the wrk prelude: " + pop_error(L));
  }
  fill_wrk_table(L, config);
  lua_setglobal(L, "wrk");
  const std::string& path = config.script_path;
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) return bad_input("script " + path + ": cannot open: " + std::strerror(errno));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return bad_input("script " + path + ": is a directory");
  std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (code.starts_with("#")) code.replace(0, code.find('\n') == std::string::npos ? code.size() : code.find('\n'), "");
  // Messages name the file as "name.lua:LINE:"; Lua would cut a long path to its last 60 characters.
  const std::string chunk = "@" + std::filesystem::path(path).filename().string();
  if (luaL_loadbuffer(L, code.data(), code.size(), chunk.c_str()) != 0) return bad_input("script " + path + ": " + pop_error(L));
  if (lua_pcall(L, 0, 0, 0) != 0) return bad_input("script " + path + ": " + pop_error(L));
  return Ok{};
}

}  // namespace pacer::script
