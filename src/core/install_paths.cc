// Where installed files are (see install_paths.h).
#include "core/install_paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

// The module directory relative to the binary's, from the install layout CMake was
// configured with (GNUInstallDirs: ../lib/x86_64-linux-gnu/pacer for /usr).
#ifndef PACER_MODULE_DIR_FROM_BIN
#define PACER_MODULE_DIR_FROM_BIN "../lib/pacer"
#endif

namespace pacer::core {

std::string executable_dir() {
  std::string path(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= path.size()) return {};
  path.resize(static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::vector<std::string> http3_module_candidates() {
  const char* named = std::getenv("PACER_HTTP3_MODULE");
  if (named != nullptr && *named != '\0') return {named};
  const std::string dir = executable_dir();
  if (dir.empty()) return {kHttp3ModuleFile};
  const std::filesystem::path installed =
      std::filesystem::path(dir + PACER_MODULE_DIR_FROM_BIN "/" + kHttp3ModuleFile).lexically_normal();
  return {dir + kHttp3ModuleFile, installed.string()};
}

std::string http3_module_path() {
  const std::vector<std::string> candidates = http3_module_candidates();
  for (const std::string& path : candidates) {
    if (::access(path.c_str(), F_OK) == 0) return path;
  }
  return candidates.front();
}

}  // namespace pacer::core
