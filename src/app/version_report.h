// What `pacer --version` prints, as curl --version does: the version and the I/O
// engine a run would use (cli::version_line, the first line), the versions of the
// libraries this binary runs with, and the HTTP/3 and TLS modules' (or why there
// is none). Main thread; loads both modules (engine/http3_module.h,
// net/tls_module.h) to ask them.
#pragma once

#include <string>

namespace pacer::app {

// "Libraries: nghttp2/1.52.0 LuaJIT/2.1.0-beta3 ...": run-time
// versions (liburing's is the one built against: it has no run-time query).
std::string library_versions();

// The whole --version text, lines ending in '\n'.
std::string version_text();

}  // namespace pacer::app
