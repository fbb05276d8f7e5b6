// Loading one of pacer's modules (pacer-http3.so: quic/module.h; pacer-tls.so:
// tls/module.h): the copy linked into this binary when there is one (the unit
// tests link both in), else the first of the module's files that exists
// (core/install_paths.h), opened with dlopen and asked for its Module through its
// one exported entry point, which refuses a caller from another build (its
// version or its ABI, the layouts both sides share). Never unloaded. Errors are
// kRuntime (exit 1) and say what was looked for and where. Any thread.
#pragma once

#include <string>
#include <vector>

#include "core/expected.h"

namespace pacer::core {

struct ModuleFile {
  const char* prefix;    // the messages' first word: "--http3", "TLS"
  const char* name;      // "HTTP/3", "TLS"
  const char* variable;  // the environment variable that names the file
  const char* entry;     // the module's exported entry point
  std::vector<std::string> candidates;  // where it is looked for, in order
};

// The file's entry point, or why it cannot be had (not found, not pacer's).
Result<void*> open_module_entry(const ModuleFile& file);
// The entry point refused this binary.
Error module_from_another_build(const ModuleFile& file);

// Module and Abi: the module's interface and the layouts it checks; `linked`: the
// entry point when the module is linked in (a weak symbol, null when it is not).
template <typename Module, typename Abi>
Result<const Module*> load_module(const ModuleFile& file, const Module* (*linked)(const char*, const Abi*)) {
  const Abi abi;
  if (linked != nullptr) {
    if (const Module* module = linked(PACER_VERSION, &abi)) return module;
  }
  Result<void*> entry = open_module_entry(file);
  if (!entry) return entry.error();
  const auto call = reinterpret_cast<const Module* (*)(const char*, const Abi*)>(*entry);
  if (const Module* module = call(PACER_VERSION, &abi)) return module;
  return module_from_another_build(file);
}

}  // namespace pacer::core
