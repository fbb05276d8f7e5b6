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

namespace {

// Only `variable`'s value when it is set; else `file` beside the binary, then in
// the install layout's module directory.
std::vector<std::string> module_candidates(const char* file, const char* variable) {
  const char* named = std::getenv(variable);
  if (named != nullptr && *named != '\0') return {named};
  const std::string dir = executable_dir();
  if (dir.empty()) return {file};
  const std::filesystem::path installed =
      std::filesystem::path(dir + PACER_MODULE_DIR_FROM_BIN "/" + file).lexically_normal();
  return {dir + file, installed.string()};
}

}  // namespace

std::string first_existing(const std::vector<std::string>& candidates) {
  for (const std::string& path : candidates) {
    if (::access(path.c_str(), F_OK) == 0) return path;
  }
  return candidates.empty() ? std::string() : candidates.front();
}

std::vector<std::string> http3_module_candidates() { return module_candidates(kHttp3ModuleFile, "PACER_HTTP3_MODULE"); }

std::string http3_module_path() { return first_existing(http3_module_candidates()); }

std::vector<std::string> tls_module_candidates() { return module_candidates(kTlsModuleFile, "PACER_TLS_MODULE"); }

std::string tls_module_path() { return first_existing(tls_module_candidates()); }

}  // namespace pacer::core
