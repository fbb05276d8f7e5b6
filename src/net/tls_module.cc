// Loading the TLS module. See tls_module.h.
#include "net/tls_module.h"

#include <dlfcn.h>

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/install_paths.h"

// Defined by the module (tls/module.cc); weak, so a binary without the module
// linked in sees null here and loads the file.
extern "C" const pacer::tls::Module* pacer_tls_module(const char* version, const pacer::tls::ModuleAbi* abi)
    __attribute__((weak));

namespace pacer::net {

namespace {

Result<const tls::Module*> load() {
  const tls::ModuleAbi abi;
  if (pacer_tls_module != nullptr) {
    if (const tls::Module* linked = pacer_tls_module(PACER_VERSION, &abi)) return linked;
  }
  const std::string path = core::tls_module_path();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return runtime_error(fmt::format("TLS: cannot load the TLS module ({}); looked for {}; PACER_TLS_MODULE may name it",
                                     why != nullptr ? why : path, fmt::join(core::tls_module_candidates(), ", ")));
  }
  const auto entry = reinterpret_cast<tls::ModuleEntry>(::dlsym(handle, tls::kModuleEntry));
  if (entry == nullptr) return runtime_error(fmt::format("TLS: {} is not pacer's TLS module", path));
  const tls::Module* module = entry(PACER_VERSION, &abi);
  if (module == nullptr) {
    return runtime_error(fmt::format("TLS: {} comes from another build than this pacer ({}): build them together", path,
                                     PACER_VERSION));
  }
  return module;
}

}  // namespace

Result<const tls::Module*> tls_module() {
  static Result<const tls::Module*> module = load();  // once (thread-safe)
  return module;
}

}  // namespace pacer::net
