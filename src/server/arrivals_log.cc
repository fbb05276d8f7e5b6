// Writing the arrival log. See arrivals_log.h.
#include "server/arrivals_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace pacer::server {

Status write_arrivals_log(const std::string& path, const std::vector<const std::vector<TimeNs>*>& per_worker) {
  std::vector<TimeNs> arrivals_ns;
  std::size_t total = 0;
  for (const auto* records : per_worker) total += records->size();
  arrivals_ns.reserve(total);
  for (const auto* records : per_worker) arrivals_ns.insert(arrivals_ns.end(), records->begin(), records->end());
  std::sort(arrivals_ns.begin(), arrivals_ns.end());

  const std::unique_ptr<std::FILE, decltype(&std::fclose)> file(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!file) return runtime_error(fmt::format("cannot write arrivals log {}: {}", path, std::strerror(errno)));
  fmt::memory_buffer text;
  for (std::size_t i = 0; i < arrivals_ns.size(); ++i) {
    fmt::format_to(std::back_inserter(text), "{}\n", arrivals_ns[i]);
    const bool last = i + 1 == arrivals_ns.size();
    if (text.size() >= 64 * 1024 || last) {
      if (std::fwrite(text.data(), 1, text.size(), file.get()) != text.size()) {
        return runtime_error(fmt::format("cannot write arrivals log {}: {}", path, std::strerror(errno)));
      }
      text.clear();
    }
  }
  if (std::fflush(file.get()) != 0) {
    return runtime_error(fmt::format("cannot write arrivals log {}: {}", path, std::strerror(errno)));
  }
  return Ok{};
}

}  // namespace pacer::server
