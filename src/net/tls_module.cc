// Loading the TLS module. See tls_module.h.
#include "net/tls_module.h"

#include "core/install_paths.h"
#include "core/module_loader.h"

// Defined by the module (tls/module.cc); weak, so a binary without the module
// linked in sees null here and loads the file.
extern "C" const pacer::tls::Module* pacer_tls_module(const char* version, const pacer::tls::ModuleAbi* abi)
    __attribute__((weak));

namespace pacer::net {

Result<const tls::Module*> tls_module() {
  // Once, on first use (thread-safe).
  static Result<const tls::Module*> module = core::load_module(
      core::ModuleFile{"TLS", "TLS", "PACER_TLS_MODULE", tls::kModuleEntry, core::tls_module_candidates()},
      pacer_tls_module);
  return module;
}

}  // namespace pacer::net
