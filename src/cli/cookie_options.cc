// See cookie_options.h.
#include "cli/cookie_options.h"

#include <array>
#include <fcntl.h>
#include <strings.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "cookie/cookie_file.h"
#include "cli/run_draft.h"
#include "core/read_fd.h"
#include "core/unique_fd.h"

namespace pacer::cli::cookies {

namespace {

constexpr std::uint64_t kMaxCookieFileBytes = 16ull << 20;

// A cookies.txt file's cookies that go to the run's URL, as "a=1; b=2".
Result<std::string> file_cookies(const std::string& path, const Target& target) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return bad_input(fmt::format("--cookie: cannot read cookie file '{}': {}", path, std::strerror(errno)));
  ReadToEnd read = read_to_end(fd.get(), kMaxCookieFileBytes);
  if (read.err != 0) return bad_input(fmt::format("--cookie: cannot read cookie file '{}': {}", path, std::strerror(read.err)));
  if (read.past_cap) return bad_input(fmt::format("--cookie: cookie file '{}' is larger than 16 MiB", path));
  const std::int64_t now_s = static_cast<std::int64_t>(std::time(nullptr));
  // A jar larger than one user's: a file may hold many sites' cookies, of which few go to this URL.
  cookie::CookieJar jar;
  if (Status loaded = cookie::load_cookie_file(read.bytes, "--cookie @" + path, now_s, jar); !loaded) {
    return loaded.error();
  }
  std::string host = target.host;
  for (char& c : host) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  const std::string_view full = target.path;
  const cookie::Origin to{host, full.substr(0, full.find('?')), target.is_tls()};
  std::string out;
  jar.append_header(out, to, now_s);
  return out;
}

constexpr std::array<RunOptionRow, 1> kRows{{
    {{opt::kCookie, '\0', "cookie", true},
     [](const ScannedOption& o, RunDraft& d) -> Status {
       if (o.value.empty()) return bad_argument("--cookie: no cookie given (name=value; name2=value2, or @FILE)");
       d.config.cookies.push_back(o.value);
       return Ok{};
     }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

Status finish(Config& config) {
  std::string joined;
  for (const std::string& given : config.cookies) {
    auto pairs = given.front() == '@' ? file_cookies(given.substr(1), config.target)
                                      : cookie::parse_cookie_pairs(given, "--cookie");
    if (!pairs) return pairs.error();
    if (pairs->empty()) continue;  // a file with no cookie for this URL
    if (!joined.empty()) joined += "; ";
    joined += *pairs;
  }
  if (joined.empty()) return Ok{};
  // One Cookie header (RFC 6265 section 5.4): -H's pairs, then --cookie's.
  for (Header& h : config.headers) {
    if (h.name.size() == 6 && strncasecmp(h.name.c_str(), "Cookie", 6) == 0) {
      h.value += h.value.empty() ? joined : "; " + joined;
      return Ok{};
    }
  }
  config.headers.push_back({"Cookie", std::move(joined)});
  return Ok{};
}

}  // namespace pacer::cli::cookies
