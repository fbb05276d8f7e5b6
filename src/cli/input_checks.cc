// See the header. The request builders (proto/http1_request, proto/http2_request)
// trust what passes here: they add Content-Length only when -H did not give it.
#include "cli/input_checks.h"

#include <strings.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "proto/header_rules.h"

namespace pacer::cli {

Status check_request_headers(const Config& config) {
  proto::HeaderContext context;
  if (config.body) context.body_bytes = config.body->size();
  context.http2 = config.http2 || config.http3;
  context.body_flag = "-b";
  if (std::string problem = proto::header_list_problem(config.headers, context); !problem.empty()) {
    return bad_argument("-H: " + problem);
  }
  return Ok{};
}

Status check_output_files(const Config& config) {
  const std::vector<OutputFile> files = config.output_files();
  std::vector<std::string> targets;
  for (const OutputFile& file : files) {
    if (Status writable = check_writable_path(file.path, file.flag); !writable) return writable;
    auto target = resolve_output_path(file.path);
    if (!target) return bad_argument(std::string(file.flag) + ": " + target.error().message);
    // Devices and FIFOs take any number of writers (/dev/null for two outputs).
    struct stat st {};
    const bool is_special = ::stat(target->c_str(), &st) == 0 && !S_ISREG(st.st_mode);
    targets.push_back(is_special ? std::string() : *target);
  }
  for (std::size_t i = 0; i < targets.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (targets[i].empty() || targets[i] != targets[j]) continue;
      return bad_argument(fmt::format("{}: '{}' is the file {} writes too; give each output its own file",
                                      files[i].flag, files[i].path, files[j].flag));
    }
  }
  return Ok{};
}

}  // namespace pacer::cli
