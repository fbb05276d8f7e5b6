// See tls_options.h.
#include "cli/tls_options.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>

namespace pacer::cli::tls {

namespace {

Status store_readable_file(const ScannedOption& option, std::string& field) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(option.value.c_str(), "r"), &std::fclose);
  if (!file) return bad_input(fmt::format("{}: cannot read '{}': {}", option.flag, option.value, std::strerror(errno)));
  field = option.value;
  return Ok{};
}

}  // namespace

std::optional<Status> apply(const ScannedOption& option, Config& config) {
  switch (option.id) {
    case kInsecure: config.tls_verify = false; return Ok{};
    case kCaCert: return store_readable_file(option, config.tls_ca_file);
    case kCert: return store_readable_file(option, config.tls_cert_file);
    case kKey: return store_readable_file(option, config.tls_key_file);
    case kNoTlsResume: config.tls_resume = false; return Ok{};
    default: return std::nullopt;
  }
}

}  // namespace pacer::cli::tls
