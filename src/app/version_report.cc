// pacer --version (see version_report.h).
#include "app/version_report.h"

#include <brotli/decode.h>
#include <nghttp2/nghttp2.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <memory>

#include <fmt/format.h>
#include <lua.hpp>

#include "cli/cli.h"
#include "core/install_paths.h"
#include "engine/http3_module.h"
#include "net/tls_module.h"

// liburing has no run-time version call: the pkg-config version built against.
#ifndef PACER_LIBURING_VERSION
#define PACER_LIBURING_VERSION "?"
#endif

namespace pacer::app {

namespace {

// LuaJIT's own jit.version ("LuaJIT 2.1.0-beta3") from a throwaway state.
std::string luajit_version() {
  const std::unique_ptr<lua_State, decltype(&lua_close)> lua(luaL_newstate(), &lua_close);
  if (!lua) return "?";
  luaL_openlibs(lua.get());
  lua_getglobal(lua.get(), "jit");
  lua_getfield(lua.get(), -1, "version");
  const char* version = lua_tostring(lua.get(), -1);
  std::string text = version != nullptr ? version : "?";
  const std::string prefix = "LuaJIT ";
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  return text;
}

std::string brotli_version() {
  const std::uint32_t v = BrotliDecoderVersion();  // 0xMMMNNNPPP: 12 bits each for minor and patch
  return fmt::format("{}.{}.{}", v >> 24, (v >> 12) & 0xFFF, v & 0xFFF);
}

}  // namespace

std::string library_versions() {
  return fmt::format("nghttp2/{} LuaJIT/{} zlib/{} brotli/{} zstd/{} liburing/{}",
                     nghttp2_version(0)->version_str, luajit_version(),
                     zlibVersion(), brotli_version(), ZSTD_versionString(), PACER_LIBURING_VERSION);
}

std::string version_text() {
  std::string text = cli::version_line() + "\n";
  text += "Libraries: " + library_versions() + "\n";
  const auto module = engine::http3_module();
  if (module) {
    text += fmt::format("HTTP/3 module: {} ({})\n", (*module)->library_versions(), core::http3_module_path());
  } else {
    text += "HTTP/3 module: none, --http3 cannot run (" + module.error().message + ")\n";
  }
  const auto tls = net::tls_module();
  if (tls) {
    text += fmt::format("TLS module: {} ({})\n", (*tls)->library_versions(), core::tls_module_path());
  } else {
    text += "TLS module: none, https cannot run (" + tls.error().message + ")\n";
  }
  return text;
}

}  // namespace pacer::app
