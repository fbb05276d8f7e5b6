// See tls_options.h.
#include "cli/tls_options.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>
#include <openssl/ssl.h>

namespace pacer::cli::tls {

namespace {

Status store_readable_file(const ScannedOption& option, std::string& field) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(option.value.c_str(), "r"), &std::fclose);
  if (!file) return bad_input(fmt::format("{}: cannot read '{}': {}", option.flag, option.value, std::strerror(errno)));
  field = option.value;
  return Ok{};
}

Status parse_version(const ScannedOption& option, int& field) {
  if (option.value == "1.2") {
    field = TLS1_2_VERSION;
  } else if (option.value == "1.3") {
    field = TLS1_3_VERSION;
  } else {
    return bad_input(fmt::format("{}: expected 1.2 or 1.3 (got '{}')", option.flag, option.value));
  }
  return Ok{};
}

Status store_nonempty(const ScannedOption& option, std::string& field) {
  if (option.value.empty()) return bad_input(fmt::format("{}: the value is empty", option.flag));
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
    case kTlsMin: return parse_version(option, config.tls_knobs.min_version);
    case kTlsMax: return parse_version(option, config.tls_knobs.max_version);
    case kCiphers: return store_nonempty(option, config.tls_knobs.ciphers);
    case kTls13Ciphers: return store_nonempty(option, config.tls_knobs.tls13_ciphers);
    case kSni: {
      std::string name;
      if (Status s = store_nonempty(option, name); !s) return s;
      config.tls_knobs.sni = std::move(name);
      return Ok{};
    }
    case kNoSni: config.tls_knobs.no_sni = true; return Ok{};
    default: return std::nullopt;
  }
}

Status finish(const Config& config) {
  const TlsKnobs& k = config.tls_knobs;
  if (k.min_version != 0 && k.max_version != 0 && k.min_version > k.max_version) {
    return bad_argument("--tls-min 1.3 is above --tls-max 1.2: no version is left");
  }
  if (k.sni && k.no_sni) return bad_argument("--sni and --no-sni: give one");
  if (config.http3) {
    if (k.max_version == TLS1_2_VERSION) return bad_argument("--tls-max 1.2: --http3 runs QUIC, which is TLS 1.3 only");
    if (!k.ciphers.empty() || !k.tls13_ciphers.empty()) {
      return bad_argument("--ciphers/--tls13-ciphers: not with --http3 (its TLS is GnuTLS's, set by the HTTP/3 module)");
    }
    if (k.sni || k.no_sni) return bad_argument("--sni/--no-sni: not with --http3 (the HTTP/3 module sends the URL's host)");
  }
  return Ok{};
}

}  // namespace pacer::cli::tls
