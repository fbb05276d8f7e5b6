// `pacer cert` options; see the header.
#include "cli/cert_options.h"

#include <sys/stat.h>

#include <array>
#include <limits>

#include <fmt/format.h>

#include "cli/option_scan.h"
#include "cli/units.h"
#include "net/self_signed.h"

namespace pacer::cli {
namespace {

enum CertOption : int { kOut, kHost, kDays, kHelp };

constexpr std::array<OptionSpec, 4> kCertOptions{{
    {kOut, '\0', "out", true},
    {kHost, '\0', "host", true},
    {kDays, '\0', "days", true},
    {kHelp, 'h', "help", false},
}};

constexpr int kMaxDays = 3650;

Status apply_cert_option(const ScannedOption& option, CertOptions& cert) {
  switch (option.id) {
    case kOut: {
      struct stat info {};
      // A missing directory is created (as mkdir -p); something else by that name is refused.
      if (::stat(option.value.c_str(), &info) == 0 && !S_ISDIR(info.st_mode)) {
        return bad_argument(fmt::format("{}: '{}' exists and is not a directory", option.flag, option.value));
      }
      cert.out_dir = option.value;
      return Ok{};
    }
    case kHost:
      if (option.value.empty() || option.value.find_first_of(", \t") != std::string::npos) {
        return bad_argument(fmt::format("{}: '{}' is not a host name or address (one per --host)", option.flag,
                                        option.value));
      }
      cert.hosts.push_back(option.value);
      return Ok{};
    case kDays: {
      auto days = parse_count(option.value, option.flag);
      if (!days) return days.error();
      if (*days < 1 || *days > kMaxDays) {
        return bad_argument(fmt::format("{}: days must be from 1 to {}, got {}", option.flag, kMaxDays, option.value));
      }
      cert.valid_days = static_cast<int>(*days);
      return Ok{};
    }
    default: return Ok{};
  }
}

}  // namespace

Result<Invocation> parse_cert(std::span<const std::string> args) {
  const ScanResult scan = scan_options(args, kCertOptions, "pacer cert --help");
  Invocation out;
  if (scan.has(kHelp)) {
    out.command = Command::kHelp;
    out.help_text = cert_usage();
    return out;
  }
  if (scan.first_error) return *scan.first_error;
  if (!scan.positionals.empty()) {
    return bad_argument(fmt::format("cert: unexpected argument '{}' (see pacer cert --help)", scan.positionals.front()));
  }
  for (const ScannedOption& option : scan.options) {
    if (Status applied = apply_cert_option(option, out.cert); !applied) return applied.error();
  }
  if (out.cert.out_dir.empty()) return bad_argument("cert: --out DIR is required (where cert.pem and key.pem go)");
  if (out.cert.hosts.empty()) out.cert.hosts = net::default_certificate_hosts();
  out.command = Command::kCert;
  return out;
}

}  // namespace pacer::cli
