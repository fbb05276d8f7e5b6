// See proc.h.
#include "evidence/proc.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "core/read_fd.h"
#include "core/unique_fd.h"

namespace pacer::evidence {

namespace {

// The next space-separated field of `text` from `at`, moving `at` past it.
std::string_view next_field(std::string_view text, std::size_t& at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  const std::size_t start = at;
  while (at < text.size() && text[at] != ' ' && text[at] != '\t' && text[at] != '\n') ++at;
  return text.substr(start, at - start);
}

template <typename T>
bool parse_number(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

TimeNs ticks_to_ns(std::uint64_t ticks, long ticks_per_s) {
  return static_cast<TimeNs>(ticks) * (kNsPerS / static_cast<TimeNs>(ticks_per_s > 0 ? ticks_per_s : 100));
}

// "0100007F:1F90" (IPv4) or 32 hex digits ":" port (IPv6), as the kernel prints
// them: each 32-bit word of the address in the machine's byte order. Read as
// numbers: the text of an address is made only for the lines that count.
struct Endpoint {
  std::array<std::uint32_t, 4> address{};
  std::uint32_t port = 0;
  bool operator==(const Endpoint&) const = default;
};

bool parse_endpoint(std::string_view s, bool ipv6, Endpoint& out) {
  const std::size_t colon = s.find(':');
  if (colon == std::string_view::npos || !parse_number(s.substr(colon + 1), out.port, 16)) return false;
  const std::string_view hex = s.substr(0, colon);
  const std::size_t words = ipv6 ? 4 : 1;
  if (hex.size() != words * 8) return false;
  for (std::size_t w = 0; w < words; ++w) {
    if (!parse_number(hex.substr(w * 8, 8), out.address[w], 16)) return false;
  }
  return true;
}

std::string address_text(const Endpoint& e, bool ipv6) {
  char text[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(ipv6 ? AF_INET6 : AF_INET, e.address.data(), text, sizeof text) == nullptr) return "?";
  return text;
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text, long ticks_per_s, long page_bytes) {
  const std::size_t paren = text.rfind(')');
  if (paren == std::string_view::npos) return std::nullopt;
  // Fields from 3 (state) on; utime is 14, stime 15, num_threads 20, rss 24.
  std::size_t at = paren + 1;
  std::uint64_t utime = 0, stime = 0, threads = 0;
  std::int64_t rss = 0;
  for (int field = 3; field <= 24; ++field) {
    const std::string_view f = next_field(text, at);
    if (f.empty()) return std::nullopt;
    bool ok = true;
    if (field == 14) ok = parse_number(f, utime);
    if (field == 15) ok = parse_number(f, stime);
    if (field == 20) ok = parse_number(f, threads);
    if (field == 24) ok = parse_number(f, rss);
    if (!ok) return std::nullopt;
  }
  ProcStat out;
  out.cpu_user_ns = ticks_to_ns(utime, ticks_per_s);
  out.cpu_system_ns = ticks_to_ns(stime, ticks_per_s);
  out.threads = threads;
  out.rss_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(rss, 0)) * static_cast<std::uint64_t>(page_bytes);
  return out;
}

void parse_proc_status(std::string_view text, ProcStat& out) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    std::size_t pos = colon + 1;
    const std::string_view value = next_field(line, pos);
    if (key == "voluntary_ctxt_switches") (void)parse_number(value, out.voluntary_switches);
    if (key == "nonvoluntary_ctxt_switches") (void)parse_number(value, out.involuntary_switches);
  }
}

Result<std::string> read_small_file(const std::string& path, std::size_t max_bytes) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return runtime_error(fmt::format("{}: {}", path, std::strerror(errno)));
  ReadToEnd text = read_to_end(fd.get(), max_bytes);
  if (text.err != 0) return runtime_error(fmt::format("{}: {}", path, std::strerror(text.err)));
  if (text.bytes.size() > max_bytes) text.bytes.resize(max_bytes);
  return std::move(text.bytes);
}

std::optional<std::uint64_t> count_dir_entries(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return std::nullopt;
  std::uint64_t n = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) ++n;
  }
  ::closedir(dir);
  return n;
}

Result<ProcStat> read_proc(int pid) {
  const std::string base = pid == 0 ? std::string("/proc/self") : fmt::format("/proc/{}", pid);
  auto stat_text = read_small_file(base + "/stat", 4096);
  if (!stat_text) return stat_text.error();
  auto stat = parse_proc_stat(*stat_text, ::sysconf(_SC_CLK_TCK), ::sysconf(_SC_PAGESIZE));
  if (!stat) return runtime_error(fmt::format("{}/stat: not a process's stat line", base));
  if (auto status = read_small_file(base + "/status", 16384)) parse_proc_status(*status, *stat);
  // The process's fds; the directory itself is open while it is counted.
  if (auto fds = count_dir_entries(base + "/fd")) stat->open_fds = pid == 0 && *fds > 0 ? *fds - 1 : *fds;
  return *stat;
}

void count_ports(std::string_view text, bool ipv6, std::uint16_t remote_port, std::uint32_t low, std::uint32_t high,
                 std::vector<PortUse>& out) {
  struct Count {
    Endpoint local, remote;  // the local port is not part of the key
    std::uint64_t in_use;
  };
  std::vector<Count> counts;  // a few (source address, destination) pairs: a linear search
  std::size_t at = text.find('\n');  // past the header
  while (at != std::string_view::npos && at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at + 1), text.size());
    const std::string_view line = text.substr(at + 1, end - at - 1);
    at = end;
    std::size_t pos = 0;
    (void)next_field(line, pos);  // "sl:"
    const std::string_view local_text = next_field(line, pos);
    const std::string_view remote_text = next_field(line, pos);
    // Most lines are other sockets: the ports decide before the addresses are read.
    std::uint32_t port = 0;
    const std::size_t colon = remote_text.find(':');
    if (colon == std::string_view::npos || !parse_number(remote_text.substr(colon + 1), port, 16) ||
        port != remote_port) {
      continue;
    }
    Endpoint local, remote;
    if (!parse_endpoint(local_text, ipv6, local) || local.port < low || local.port > high) continue;
    if (!parse_endpoint(remote_text, ipv6, remote)) continue;
    local.port = 0;
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const Count& c) { return c.local == local && c.remote == remote; });
    if (it == counts.end()) {
      counts.push_back({local, remote, 1});
    } else {
      ++it->in_use;
    }
  }
  for (const Count& c : counts) {
    const std::string remote = address_text(c.remote, ipv6);
    out.push_back({address_text(c.local, ipv6),
                   ipv6 ? fmt::format("[{}]:{}", remote, c.remote.port) : fmt::format("{}:{}", remote, c.remote.port),
                   c.in_use});
  }
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_port_range(std::string_view text) {
  std::size_t at = 0;
  std::uint32_t low = 0, high = 0;
  if (!parse_number(next_field(text, at), low) || !parse_number(next_field(text, at), high) || low > high) {
    return std::nullopt;
  }
  return std::pair{low, high};
}

}  // namespace pacer::evidence
