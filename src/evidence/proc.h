// Readers of Linux's /proc for the evidence (issue 28): a process's CPU, memory,
// threads, context switches and open files; the sockets of the network
// namespace per local address and destination; the ephemeral port range. The
// parsers are pure functions of the file's text (unit-tested, fuzzed); the
// readers read at most a bounded amount. Any thread; no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "evidence/samples.h"

namespace pacer::evidence {

// A process's counters at one moment (cumulative since it started).
struct ProcStat {
  TimeNs cpu_user_ns = 0;
  TimeNs cpu_system_ns = 0;
  std::uint64_t threads = 0;
  std::uint64_t rss_bytes = 0;
  std::uint64_t voluntary_switches = 0;
  std::uint64_t involuntary_switches = 0;
  std::optional<std::uint64_t> open_fds;
};

// /proc/PID/stat: utime, stime, num_threads and rss (the command may hold
// spaces and parentheses: fields are counted from the last ')'). nullopt when
// the text is not such a line. ticks_per_s: sysconf(_SC_CLK_TCK); page_bytes:
// sysconf(_SC_PAGESIZE).
std::optional<ProcStat> parse_proc_stat(std::string_view text, long ticks_per_s, long page_bytes);
// /proc/PID/status: the voluntary_ctxt_switches and nonvoluntary_ctxt_switches
// lines into `out` (left as they are when absent).
void parse_proc_status(std::string_view text, ProcStat& out);
// All of the above for `pid` (0: this process). Errors name the file and the reason.
Result<ProcStat> read_proc(int pid);

// Entries of a directory (/proc/self/fd) but "." and ".."; nullopt if unreadable.
std::optional<std::uint64_t> count_dir_entries(const std::string& path);

// /proc/net/tcp or tcp6: sockets whose remote port is `remote_port` and whose
// local port lies in [low, high], counted per (local address, remote address:port),
// added to `out` (kept sorted by in_use, largest first, by the caller).
void count_ports(std::string_view text, bool ipv6, std::uint16_t remote_port, std::uint32_t low, std::uint32_t high,
                 std::vector<PortUse>& out);
// /proc/sys/net/ipv4/ip_local_port_range ("32768\t60999"): the range, or nullopt.
std::optional<std::pair<std::uint32_t, std::uint32_t>> parse_port_range(std::string_view text);

// A small /proc file's text (at most max_bytes), or the errno of the failure.
Result<std::string> read_small_file(const std::string& path, std::size_t max_bytes);

}  // namespace pacer::evidence
