// Where the files installed with pacer are, found from the running binary so that
// a build tree, `cmake --install` under any prefix and the Debian package all work
// without configuration: the modules, pacer-http3.so (quic/module.h) and
// pacer-tls.so (tls/module.h), are beside the binary in a build tree, and in
// PREFIX/lib/<multiarch>/pacer/ when installed (PREFIX/bin/pacer). Reads
// /proc/self/exe and the environment; any thread.
#pragma once

#include <string>
#include <vector>

namespace pacer::core {

inline constexpr const char* kHttp3ModuleFile = "pacer-http3.so";
inline constexpr const char* kTlsModuleFile = "pacer-tls.so";

// The directory of the running binary with a trailing '/', or "" when unknown.
std::string executable_dir();

// Where pacer-http3.so is looked for, in order: only PACER_HTTP3_MODULE when it is
// set; else beside the binary (a build tree), then the install layout's module
// directory relative to the binary (bin/../lib/<multiarch>/pacer/).
std::vector<std::string> http3_module_candidates();

// The first candidate that exists, else the first one (dlopen's error then names it).
std::string http3_module_path();

// The first of `candidates` that exists, else the first one (dlopen's error then names it).
std::string first_existing(const std::vector<std::string>& candidates);

// The same for pacer-tls.so, named by PACER_TLS_MODULE.
std::vector<std::string> tls_module_candidates();
std::string tls_module_path();

}  // namespace pacer::core
