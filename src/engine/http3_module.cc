// Loading the HTTP/3 module. See http3_module.h.
#include "engine/http3_module.h"

#include <dlfcn.h>

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/install_paths.h"

// Defined by the module (quic/module.cc); weak, so a binary without the module
// linked in sees null here and loads the file.
extern "C" const pacer::quic::Module* pacer_http3_module(const char* version, const pacer::quic::ModuleAbi* abi)
    __attribute__((weak));

namespace pacer::engine {

namespace {

Result<const quic::Module*> load() {
  const quic::ModuleAbi abi;
  if (pacer_http3_module != nullptr) {
    if (const quic::Module* linked = pacer_http3_module(PACER_VERSION, &abi)) return linked;
  }
  const std::string path = core::http3_module_path();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return runtime_error(fmt::format("--http3: cannot load the HTTP/3 module ({}); looked for {}; "
                                     "PACER_HTTP3_MODULE may name it",
                                     why != nullptr ? why : path, fmt::join(core::http3_module_candidates(), ", ")));
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
