// Test support: gtlsserver (ngtcp2's GnuTLS example server, Debian package
// ngtcp2-server) as a child process on 127.0.0.1 and a free UDP port, serving a
// directory with index.html, with the certificate of a testing::TlsFiles. Killed by
// the destructor. Readiness: its UDP port in /proc/net/udp.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "loopback.h"
#include "tls_files.h"

namespace pacer::testing {

inline bool gtlsserver_installed() { return std::system("command -v gtlsserver >/dev/null 2>&1") == 0; }

inline bool udp_port_bound(int port) {
  char needle[16];
  std::snprintf(needle, sizeof needle, ":%04X ", port);
  std::ifstream table("/proc/net/udp");
  std::string line;
  while (std::getline(table, line)) {
    if (line.find(needle) != std::string::npos && line.find(needle) < 20) return true;
  }
  return false;
}

// gtlsserver serving `htdocs` (index.html) on 127.0.0.1:port; killed by the destructor.
class Gtlsserver {
 public:
  explicit Gtlsserver(const TlsFiles& files) : port_(free_loopback_port(SOCK_DGRAM)) {
    htdocs_ = files.dir.file("htdocs");
    ::mkdir(htdocs_.c_str(), 0755);
    std::ofstream(htdocs_ + "/index.html") << "hello over HTTP/3\n";
    const std::string port = std::to_string(port_);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // an aborted test leaves no server behind
      const int null = ::open("/dev/null", O_WRONLY);  // its banner and logs are not the test's output
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execlp("gtlsserver", "gtlsserver", "-q", "-d", htdocs_.c_str(), "127.0.0.1", port.c_str(), files.key.c_str(),
               files.cert.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 200 && !udp_port_bound(port_); ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      ::usleep(20'000);
    }
  }
  ~Gtlsserver() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  bool running() const { return pid_ > 0 && udp_port_bound(port_); }
  int port() const { return port_; }

 private:
  int port_;
  pid_t pid_ = -1;
  std::string htdocs_;
};

}  // namespace pacer::testing
