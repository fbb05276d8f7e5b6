// Shared pieces of the targets formats. See parse_common.h.
#include "targets/parse_common.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "cli/units.h"
#include "proto/header_rules.h"
#include "proto/uri_reference.h"
#include "stats/name_table.h"

namespace pacer::targets::detail {

std::string where(const TargetSource& source, std::size_t line) { return fmt::format("{}:{}", source.name, line); }

Error fail_at(const std::string& at, std::string_view reason) { return bad_input(fmt::format("{}: {}", at, reason)); }

bool is_known_method(std::string_view method) {
  constexpr std::array<std::string_view, 9> kMethods{"GET",     "HEAD",    "POST",  "PUT",  "DELETE",
                                                     "CONNECT", "OPTIONS", "TRACE", "PATCH"};
  return std::find(kMethods.begin(), kMethods.end(), method) != kMethods.end();
}

bool is_token(std::string_view text) { return proto::is_header_token(text); }

bool is_field_value(std::string_view text) { return proto::is_header_value(text); }

namespace {

std::string origin_text(const Target& t) { return fmt::format("{}://{}:{}", t.scheme, t.host, t.port); }

bool same_origin(const Target& a, const Target& b) {
  return a.scheme == b.scheme && a.port == b.port && a.host.size() == b.host.size() &&
         std::equal(a.host.begin(), a.host.end(), b.host.begin(),
                    [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); });
}

bool is_absolute(std::string_view url) {
  const std::size_t colon = url.find("://");
  return colon != std::string_view::npos && colon > 0 &&
         std::all_of(url.begin(), url.begin() + static_cast<std::ptrdiff_t>(colon),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// A reference (a path "/x/../y", a relative "x", "?q") against the base path
// ("/a/b?c") as RFC 3986 section 5 says: dot segments removed, the fragment
// dropped (never sent). The origin-form target.
std::string resolve_path(const std::string& base_path, std::string_view ref) {
  proto::UriParts base = proto::split_uri(base_path);
  base.scheme = "http";
  base.has_scheme = true;
  base.authority = {};
  base.has_authority = true;  // so the result is "http://" + the target
  proto::UriParts reference = proto::split_uri(ref);
  reference.has_fragment = false;
  std::string out;
  proto::resolve_reference(base, reference, out);
  out.erase(0, 7);
  if (out.empty() || out.front() == '?') out.insert(0, 1, '/');
  return out;
}

// An absolute URL's own target ("/a/../b?q", "//h/b"): only its dot segments
// go. Read as a reference, "//h/b" would name a host h.
std::string clean_origin_form(std::string_view target) {
  const std::size_t end = target.find_first_of("?#");
  std::string out(target.substr(0, end));
  proto::remove_dot_segments(out);
  if (out.empty() || out.front() != '/') out.insert(0, 1, '/');
  if (end != std::string_view::npos && target[end] == '?') out += target.substr(end, target.find('#', end) - end);
  return out;
}

}  // namespace

void note_origin(std::string_view url, std::optional<Target>& origin) {
  if (origin || !is_absolute(url)) return;
  if (auto parsed = cli::parse_url(url)) origin = *parsed;
}

Result<std::string> resolve_url(std::string_view url, std::optional<Target>& origin, const TargetSource& source,
                                const std::string& at) {
  if (url.empty()) return fail_at(at, "the target has no URL");
  if (url.size() > proto::kMaxUrlBytes) {
    return fail_at(at, fmt::format("the URL is {} bytes, more than the URL cap ({} bytes): '{}...'", url.size(),
                                   proto::kMaxUrlBytes, url.substr(0, 64)));
  }
  if (url.find_first_of(" \t\r\n") != std::string_view::npos || std::any_of(url.begin(), url.end(), [](char c) {
        return std::iscntrl(static_cast<unsigned char>(c)) != 0;
      })) {
    return fail_at(at, fmt::format("'{}' is not a URL (spaces or control characters)", url));
  }
  if (is_absolute(url)) {
    auto parsed = cli::parse_url(url);
    if (!parsed) return fail_at(at, parsed.error().message);
    if (!origin) {
      origin = *parsed;
    } else if (!same_origin(*origin, *parsed)) {
      return fail_at(at, fmt::format("a second origin: {} names {}, but the run's origin is {} (all targets of a "
                                     "run share one scheme, host and port)",
                                     url, origin_text(*parsed), origin_text(*origin)));
    }
    return clean_origin_form(parsed->path);  // "/a/../b" is "/b", as for a relative reference
  }
  if (proto::split_uri(url).has_scheme) {
    return fail_at(at, fmt::format("'{}' is not an http:// or https:// URL", url));
  }
  if (url.starts_with("//")) return fail_at(at, fmt::format("'{}': a URL without a scheme is not supported", url));
  if (!origin) {
    return fail_at(at, fmt::format("'{}' is a relative URL, and there is no URL to resolve it against (give the URL "
                                   "on the command line, or give a target an absolute URL)",
                                   url));
  }
  return resolve_path(source.base ? source.base->path : origin->path, url);
}

Result<std::string> read_body_file(std::string_view path, const TargetSource& source, const std::string& at) {
  if (path.empty()) return fail_at(at, "'@' names no body file");
  std::string full(path);
  if (full.front() != '/' && !source.body_dir.empty()) full = source.body_dir + "/" + full;
  struct stat st {};
  if (::stat(full.c_str(), &st) != 0) {
    return fail_at(at, fmt::format("cannot read the body file '{}': {}", full, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) return fail_at(at, fmt::format("cannot read the body file '{}': it is a directory", full));
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > source.max_body_bytes) {
    return fail_at(at, fmt::format("the body file '{}' holds {} bytes, more than --max-request-body ({} bytes)", full,
                                   st.st_size, source.max_body_bytes));
  }
  std::ifstream in(full, std::ios::binary);
  if (!in) return fail_at(at, fmt::format("cannot read the body file '{}': {}", full, std::strerror(errno)));
  std::string body;
  char chunk[64 * 1024];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    body.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (body.size() > source.max_body_bytes) {
      return fail_at(at, fmt::format("the body file '{}' holds more than --max-request-body ({} bytes)", full,
                                     source.max_body_bytes));
    }
  }
  if (in.bad()) return fail_at(at, fmt::format("cannot read the body file '{}': {}", full, std::strerror(errno)));
  return body;
}

std::optional<std::string> decode_base64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int held = 0;
  for (char c : text) {
    const int v = value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out += static_cast<char>((bits >> held) & 0xFF);
    }
  }
  if ((bits & ((1u << held) - 1)) != 0) return std::nullopt;  // stray bits: not canonical base64
  return out;
}

Status finish_target(RequestTarget& target, const std::string& at) {
  if (target.weight < 1 || target.weight > kMaxWeight) {
    return fail_at(at, fmt::format("weight {} is outside 1..{}", target.weight, kMaxWeight));
  }
  if (target.name.size() > stats::NameTable::kMaxNameBytes) {
    return fail_at(at, fmt::format("the name is longer than {} bytes", stats::NameTable::kMaxNameBytes));
  }
  target.where = at;
  return Ok{};
}

}  // namespace pacer::targets::detail
