// Loading the HTTP/3 module. See http3_module.h.
#include "engine/http3_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <fmt/format.h>

// Defined by the module (quic/module.cc); weak, so a binary without the module
// linked in sees null here and loads the file.
extern "C" const pacer::quic::Module* pacer_http3_module(const char* version, const pacer::quic::ModuleAbi* abi)
    __attribute__((weak));

namespace pacer::engine {

namespace {

constexpr const char* kModuleFile = "pacer-http3.so";

// pacer-http3.so in the directory of the running binary.
std::string beside_binary() {
  std::string path(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= path.size()) return kModuleFile;
  path.resize(static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + kModuleFile;
}

Result<const quic::Module*> load() {
  const quic::ModuleAbi abi;
  if (pacer_http3_module != nullptr) {
    if (const quic::Module* linked = pacer_http3_module(PACER_VERSION, &abi)) return linked;
  }
  const char* named = std::getenv("PACER_HTTP3_MODULE");
  const std::string path = named != nullptr && *named != '\0' ? std::string(named) : beside_binary();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return runtime_error(fmt::format("--http3: cannot load the HTTP/3 module ({}); pacer-http3.so is built beside "
                                     "the pacer binary, or PACER_HTTP3_MODULE names it",
                                     why != nullptr ? why : path));
  }
  const auto entry = reinterpret_cast<quic::ModuleEntry>(::dlsym(handle, quic::kModuleEntry));
  if (entry == nullptr) return runtime_error(fmt::format("--http3: {} is not pacer's HTTP/3 module", path));
  const quic::Module* module = entry(PACER_VERSION, &abi);
  if (module == nullptr) {
    return runtime_error(fmt::format("--http3: {} comes from another build than this pacer ({}): build them together",
                                     path, PACER_VERSION));
  }
  return module;
}

}  // namespace

Result<const quic::Module*> http3_module() {
  static Result<const quic::Module*> module = load();  // main thread, once
  return module;
}

}  // namespace pacer::engine
