// The /proc readers' parsers (evidence/proc.h) on texts as the kernel writes them.
#include "evidence/proc.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace pacer::evidence {
namespace {

TEST(ProcStat, ReadsCpuThreadsAndRssPastACommandWithSpacesAndParentheses) {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice num_threads itrealvalue starttime vsize rss ...
  const char* line = "4242 (nginx: (worker) x) S 1 4242 4242 0 -1 4194624 100 0 0 0 250 125 0 0 20 0 3 0 "
                     "12345 1000000 512 18446744073709551615";
  const auto s = parse_proc_stat(line, 100, 4096);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cpu_user_ns, 2'500'000'000);
  EXPECT_EQ(s->cpu_system_ns, 1'250'000'000);
  EXPECT_EQ(s->threads, 3u);
  EXPECT_EQ(s->rss_bytes, 512u * 4096u);
}

TEST(ProcStat, RefusesATruncatedLine) {
  EXPECT_FALSE(parse_proc_stat("4242 (x) S 1 2 3", 100, 4096));
  EXPECT_FALSE(parse_proc_stat("no parenthesis", 100, 4096));
}

TEST(ProcStatus, ReadsBothContextSwitchCounts) {
  ProcStat s;
  parse_proc_status("Name:\tnginx\nThreads:\t1\nvoluntary_ctxt_switches:\t1500\nnonvoluntary_ctxt_switches:\t27\n", s);
  EXPECT_EQ(s.voluntary_switches, 1500u);
  EXPECT_EQ(s.involuntary_switches, 27u);
}

TEST(ProcReader, ReadsThisProcessAndCountsItsFds) {
  const auto s = read_proc(0);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_GT(s->rss_bytes, 0u);
  EXPECT_GE(s->threads, 1u);
  ASSERT_TRUE(s->open_fds);
  EXPECT_GE(*s->open_fds, 3u);  // stdin, stdout, stderr at least
}

TEST(ProcReader, NamesTheFileOfAProcessThatDoesNotExist) {
  const auto s = read_proc(999'999'999);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("/proc/999999999/stat"), std::string::npos);
}

TEST(NetTcp, CountsSocketsPerSourceToTheRemotePortInTheEphemeralRange) {
  // 127.0.0.1:40000 -> 127.0.0.1:8080 (established), :40001 -> :8080 (TIME_WAIT),
  // 127.0.0.2:40002 -> :8080, a listener on 8080 and a socket to port 9090.
  const char* text =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
      "   0: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 1 1\n"
      "   1: 0100007F:9C41 0100007F:1F90 06 00000000:00000000 03:00001000 00000000     0        0 0 3\n"
      "   2: 0200007F:9C42 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 2 1\n"
      "   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 3 1\n"
      "   4: 0100007F:9C43 0100007F:2382 01 00000000:00000000 00:00000000 00000000  1000        0 4 1\n";
  std::vector<PortUse> ports;
  count_ports(text, false, 8080, 32768, 60999, ports);
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0].local, "127.0.0.1");
  EXPECT_EQ(ports[0].remote, "127.0.0.1:8080");
  EXPECT_EQ(ports[0].in_use, 2u);
  EXPECT_EQ(ports[1].local, "127.0.0.2");
  EXPECT_EQ(ports[1].in_use, 1u);
}

TEST(NetTcp, ReadsIpv6Addresses) {
  const char* text =
      "  sl  local_address                         remote_address                        st\n"
      "   0: 00000000000000000000000001000000:9C40 00000000000000000000000001000000:1F90 01 0\n";
  std::vector<PortUse> ports;
  count_ports(text, true, 8080, 32768, 60999, ports);
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_EQ(ports[0].local, "::1");
  EXPECT_EQ(ports[0].remote, "[::1]:8080");
}

TEST(PortRange, ReadsTheKernelsTwoNumbers) {
  const auto r = parse_port_range("32768\t60999\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 32768u);
  EXPECT_EQ(r->second, 60999u);
  EXPECT_FALSE(parse_port_range("60999 32768"));
  EXPECT_FALSE(parse_port_range("x"));
}

}  // namespace
}  // namespace pacer::evidence
