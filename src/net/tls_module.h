// Finds and loads the TLS module (tls/module.h) the first time TLS is needed (an
// https:// target or proxy, `pacer serve --tls`, `pacer cert`, --version): the
// file pacer-tls.so beside the running binary, or the one PACER_TLS_MODULE names.
// Loaded once and never unloaded: on the main thread before workers start, except
// for a scenario's other https origin (engine/drive/origin_links.h), whose worker
// makes its context at its first request there, as it resolves the host there
// (the load is thread-safe: a function-local static). A binary that has the
// module linked in (the unit tests) uses that one.
#pragma once

#include "core/expected.h"
#include "tls/module.h"

namespace pacer::net {

// The module, or why it cannot be used (exit 1): not found, not pacer's, or
// from another build than this binary.
Result<const tls::Module*> tls_module();

}  // namespace pacer::net
