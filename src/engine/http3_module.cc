// Loading the HTTP/3 module. See http3_module.h.
#include "engine/http3_module.h"

#include "core/install_paths.h"
#include "core/module_loader.h"

// Defined by the module (quic/module.cc); weak, so a binary without the module
// linked in sees null here and loads the file.
extern "C" const pacer::quic::Module* pacer_http3_module(const char* version, const pacer::quic::ModuleAbi* abi)
    __attribute__((weak));

namespace pacer::engine {

Result<const quic::Module*> http3_module() {
  // Once, on first use (thread-safe).
  static Result<const quic::Module*> module = core::load_module(
      core::ModuleFile{"--http3", "HTTP/3", "PACER_HTTP3_MODULE", quic::kModuleEntry, core::http3_module_candidates()},
      pacer_http3_module);
  return module;
}

}  // namespace pacer::engine
