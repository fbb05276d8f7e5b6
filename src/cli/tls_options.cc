// See tls_options.h.
#include "cli/tls_options.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

#include <fmt/format.h>

#include "cli/run_draft.h"
#include "net/tls_options.h"

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
    field = net::kTls12Version;
  } else if (option.value == "1.3") {
    field = net::kTls13Version;
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

// --sni's value as a host name goes into the ClientHello: at most 255 bytes of
// printable ASCII (an internationalised name in its xn-- form), no space.
Status check_server_name(std::string_view name) {
  if (name.empty()) return bad_argument("--sni: the value is empty");
  if (name.size() > 255) {
    return bad_argument(fmt::format("--sni: a host name is at most 255 bytes (got {})", name.size()));
  }
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte >= 0x7F) {
      return bad_argument(fmt::format("--sni: not a host name: byte 0x{:02X} (a host name is printable ASCII without "
                                      "spaces; an internationalised name goes in its xn-- form)", byte));
    }
  }
  return Ok{};
}

// The TLS options that act on no handshake: an http:// URL has none; a cipher list of
// a version the bounds leave out is never used.
Status check_knobs_apply(const Config& config) {
  const TlsKnobs& k = config.tls_knobs;
  if (!config.target.is_tls()) {
    const char* given = k.min_version != 0 ? "--tls-min" : k.max_version != 0 ? "--tls-max" : !k.ciphers.empty() ? "--ciphers"
                      : !k.tls13_ciphers.empty() ? "--tls13-ciphers" : k.sni ? "--sni" : k.no_sni ? "--no-sni" : nullptr;
    if (given != nullptr) {
      return bad_argument(fmt::format("{}: only with an https:// URL ({} has no TLS handshake)", given, config.target.url));
    }
  }
  if (k.min_version == net::kTls13Version && !k.ciphers.empty()) {
    return bad_argument("--ciphers sets TLS 1.2's cipher list, which --tls-min 1.3 never uses: give --tls13-ciphers");
  }
  if (k.max_version == net::kTls12Version && !k.tls13_ciphers.empty()) {
    return bad_argument("--tls13-ciphers sets TLS 1.3's suites, which --tls-max 1.2 never uses: give --ciphers");
  }
  return Ok{};
}

Status apply_sni(const ScannedOption& option, RunDraft& draft) {
  if (Status s = check_server_name(option.value); !s) return s;
  draft.config.tls_knobs.sni = option.value;
  return Ok{};
}

constexpr std::array<RunOptionRow, 11> kRows{{
    {{opt::kInsecure, 'k', "insecure", false},
     [](const ScannedOption&, RunDraft& d) -> Status {
       d.config.tls_verify = false;
       return Ok{};
     }},
    {{opt::kCaCert, '\0', "cacert", true},
     [](const ScannedOption& o, RunDraft& d) { return store_readable_file(o, d.config.tls_ca_file); }},
    {{opt::kCert, '\0', "cert", true},
     [](const ScannedOption& o, RunDraft& d) { return store_readable_file(o, d.config.tls_cert_file); }},
    {{opt::kKey, '\0', "key", true},
     [](const ScannedOption& o, RunDraft& d) { return store_readable_file(o, d.config.tls_key_file); }},
    {{opt::kNoTlsResume, '\0', "no-tls-resume", false},
     [](const ScannedOption&, RunDraft& d) -> Status {
       d.config.tls_resume = false;
       return Ok{};
     }},
    {{opt::kTlsMin, '\0', "tls-min", true},
     [](const ScannedOption& o, RunDraft& d) { return parse_version(o, d.config.tls_knobs.min_version); }},
    {{opt::kTlsMax, '\0', "tls-max", true},
     [](const ScannedOption& o, RunDraft& d) { return parse_version(o, d.config.tls_knobs.max_version); }},
    {{opt::kCiphers, '\0', "ciphers", true},
     [](const ScannedOption& o, RunDraft& d) { return store_nonempty(o, d.config.tls_knobs.ciphers); }},
    {{opt::kTls13Ciphers, '\0', "tls13-ciphers", true},
     [](const ScannedOption& o, RunDraft& d) { return store_nonempty(o, d.config.tls_knobs.tls13_ciphers); }},
    {{opt::kSni, '\0', "sni", true}, &apply_sni},
    {{opt::kNoSni, '\0', "no-sni", false},
     [](const ScannedOption&, RunDraft& d) -> Status {
       d.config.tls_knobs.no_sni = true;
       return Ok{};
     }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

Status finish(const Config& config) {
  const TlsKnobs& k = config.tls_knobs;
  if (k.min_version != 0 && k.max_version != 0 && k.min_version > k.max_version) {
    return bad_argument("--tls-min 1.3 is above --tls-max 1.2: no version is left");
  }
  if (k.sni && k.no_sni) return bad_argument("--sni and --no-sni: give one");
  if (Status applies = check_knobs_apply(config); !applies) return applies;
  if (config.http3) {
    if (k.max_version == net::kTls12Version) return bad_argument("--tls-max 1.2: --http3 runs QUIC, which is TLS 1.3 only");
    if (!k.ciphers.empty() || !k.tls13_ciphers.empty()) {
      return bad_argument("--ciphers/--tls13-ciphers: not with --http3 (its TLS is GnuTLS's, set by the HTTP/3 module)");
    }
    if (k.sni || k.no_sni) return bad_argument("--sni/--no-sni: not with --http3 (the HTTP/3 module sends the URL's host)");
  }
  return Ok{};
}

}  // namespace pacer::cli::tls
