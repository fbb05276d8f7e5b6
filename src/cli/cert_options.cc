// `pacer cert` options; see the header.
#include "cli/cert_options.h"

#include <sys/stat.h>

#include <array>
#include <cassert>
#include <limits>

#include <fmt/format.h>

#include "cli/option_scan.h"
#include "cli/option_table.h"
#include "cli/units.h"
#include "net/self_signed.h"

namespace pacer::cli {
namespace {

enum CertOption : int { kOut, kHost, kDays, kHelp, kCertOptionCount };

constexpr int kMaxDays = 3650;

Status apply_out(const ScannedOption& option, CertOptions& cert) {
  struct stat info {};
  // A missing directory is created (as mkdir -p); something else by that name is refused.
  if (::stat(option.value.c_str(), &info) == 0 && !S_ISDIR(info.st_mode)) {
    return bad_argument(fmt::format("{}: '{}' exists and is not a directory", option.flag, option.value));
  }
  cert.out_dir = option.value;
  return Ok{};
}

Status apply_host(const ScannedOption& option, CertOptions& cert) {
  if (option.value.empty() || option.value.find_first_of(", \t") != std::string::npos) {
    return bad_argument(fmt::format("{}: '{}' is not a host name or address (one per --host)", option.flag, option.value));
  }
  cert.hosts.push_back(option.value);
  return Ok{};
}

Status apply_days(const ScannedOption& option, CertOptions& cert) {
  auto days = parse_count(option.value, option.flag);
  if (!days) return days.error();
  if (*days < 1 || *days > kMaxDays) {
    return bad_argument(fmt::format("{}: days must be from 1 to {}, got {}", option.flag, kMaxDays, option.value));
  }
  cert.valid_days = static_cast<int>(*days);
  return Ok{};
}

constexpr std::array<OptionRow<CertOptions>, kCertOptionCount> kCertRows{{
    {{kOut, '\0', "out", true}, &apply_out},
    {{kHost, '\0', "host", true}, &apply_host},
    {{kDays, '\0', "days", true}, &apply_days},
    {{kHelp, 'h', "help", false}, [](const ScannedOption&, CertOptions&) -> Status { return Ok{}; }},  // read from the scan
}};

}  // namespace

OptionTableReport cert_options_table() { return report_of<CertOptions>(kCertRows, kCertOptionCount); }

Result<Invocation> parse_cert(std::span<const std::string> args) {
  assert(table_faults<CertOptions>(kCertRows, kCertOptionCount).empty());  // tests/cli/run_options_test.cc names them
  const ScanResult scan = scan_options(args, specs_of<CertOptions>(kCertRows), "pacer cert --help");
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
  if (Status applied = apply_options<CertOptions>(scan.options, kCertRows, out.cert); !applied) return applied.error();
  if (out.cert.out_dir.empty()) return bad_argument("cert: --out DIR is required (where cert.pem and key.pem go)");
  if (out.cert.hosts.empty()) out.cert.hosts = net::default_certificate_hosts();
  out.command = Command::kCert;
  return out;
}

}  // namespace pacer::cli
