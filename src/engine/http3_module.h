// Finds and loads the HTTP/3 module (quic/module.h) for an --http3 run: the
// file pacer-http3.so beside the running binary, or the one PACER_HTTP3_MODULE
// names. Loaded once, on the main thread, before the run starts; never unloaded.
// A binary that has the module linked in (the unit tests) uses that one.
#pragma once

#include "core/expected.h"
#include "quic/module.h"

namespace pacer::engine {

// The module, or why it cannot be used (exit 1): not found, not pacer's, or
// from another build than this binary.
Result<const quic::Module*> http3_module();

}  // namespace pacer::engine
