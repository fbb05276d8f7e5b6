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

namespace pacer::cli {
namespace {

bool is_named(const Header& header, const char* name) { return strcasecmp(header.name.c_str(), name) == 0; }

bool is_http2_connection_specific(const Header& header) {
  constexpr std::array<const char*, 5> kForbidden{"connection", "keep-alive", "proxy-connection",
                                                   "transfer-encoding", "upgrade"};
  return std::any_of(kForbidden.begin(), kForbidden.end(), [&](const char* name) { return is_named(header, name); }) ||
         (is_named(header, "te") && strcasecmp(header.value.c_str(), "trailers") != 0);
}

// A Content-Length value that is exactly `bytes` (digits only, leading zeros allowed).
bool states_length(const std::string& value, std::size_t bytes) {
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  if (value.empty() || !std::all_of(value.begin(), value.end(), is_digit)) return false;
  const std::size_t first = std::min(value.find_first_not_of('0'), value.size());
  return value.substr(first) == (bytes == 0 ? std::string() : std::to_string(bytes));
}

Status check_content_length(const Header& header, const Config& config) {
  const std::size_t body_bytes = config.body ? config.body->size() : 0;
  if (states_length(header.value, body_bytes)) return Ok{};
  if (config.body) {
    return bad_argument(fmt::format("-H: '{}: {}' contradicts the body (-b), which is {} bytes; pacer "
                                    "sets Content-Length from the body itself (drop the header)",
                                    header.name, header.value, body_bytes));
  }
  return bad_argument(fmt::format("-H: '{}: {}' on a request without a body (-b): the server would wait "
                                  "for bytes that never come (drop the header, or give the body with -b)",
                                  header.name, header.value));
}

}  // namespace

Status check_request_headers(const Config& config) {
  for (const Header& header : config.headers) {
    if (is_named(header, "content-length")) {
      if (Status length = check_content_length(header, config); !length) return length;
    }
    if ((config.http2 || config.http3) && is_http2_connection_specific(header)) {
      return bad_argument(fmt::format("-H: '{}: {}' is a connection-specific header, which HTTP/2 forbids "
                                      "(--http2; RFC 9113 section 8.2.2)",
                                      header.name, header.value));
    }
    if (is_named(header, "transfer-encoding")) {
      return bad_argument(fmt::format("-H: '{}: {}' contradicts the framing pacer sends (the body "
                                      "whole, with a Content-Length; never chunked): drop the header",
                                      header.name, header.value));
    }
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
