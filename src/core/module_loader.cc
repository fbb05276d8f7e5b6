// Loading pacer's modules (see module_loader.h).
#include "core/module_loader.h"

#include <dlfcn.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/install_paths.h"

namespace pacer::core {

Result<void*> open_module_entry(const ModuleFile& file) {
  const std::string path = first_existing(file.candidates);
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return runtime_error(fmt::format("{}: cannot load the {} module ({}); looked for {}; {} may name it", file.prefix,
                                     file.name, why != nullptr ? why : path, fmt::join(file.candidates, ", "),
                                     file.variable));
  }
  void* entry = ::dlsym(handle, file.entry);
  if (entry == nullptr) return runtime_error(fmt::format("{}: {} is not pacer's {} module", file.prefix, path, file.name));
  return entry;
}

Error module_from_another_build(const ModuleFile& file) {
  return runtime_error(fmt::format("{}: {} comes from another build than this pacer ({}): build them together",
                                   file.prefix, first_existing(file.candidates), PACER_VERSION));
}

}  // namespace pacer::core
