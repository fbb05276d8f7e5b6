// run_serve: the `pacer serve` command. Blocks SIGINT/SIGTERM before the workers
// start (they inherit the mask) and waits for one with sigwait on the calling thread.
#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <string>

#include "core/exit_code.h"
#include "server/server.h"

namespace pacer::server {

namespace {

// A load test may open tens of thousands of connections: take every descriptor
// the hard limit allows.
void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

int run_serve(const ServeConfig& config) {
  raise_open_file_limit();
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigset_t previous_mask;
  pthread_sigmask(SIG_BLOCK, &stop_signals, &previous_mask);

  Result<std::unique_ptr<Server>> server = Server::start(config);
  if (!server) {
    pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
    fmt::print(stderr, "pacer serve: {}\n", server.error().message);
    return to_int(server.error().kind == ErrorKind::kRuntime ? ExitCode::kRunFailed : ExitCode::kBadArguments);
  }
  const std::string host = config.listen_host.empty() ? "0.0.0.0" : config.listen_host;
  const bool is_ipv6 = host.find(':') != std::string::npos;
  if (!config.unix_path.empty()) {  // A client reaches it with --unix-socket PATH
    fmt::print("pacer serve: listening on unix:{} ({}://localhost/ with --unix-socket)\n", config.unix_path,
               config.is_tls() ? "https" : "http");
  } else {
    fmt::print("pacer serve: listening on {}://{}{}{}:{}/\n", config.is_tls() ? "https" : "http", is_ipv6 ? "[" : "",
             host, is_ipv6 ? "]" : "", (*server)->port());
  }
  std::fflush(stdout);

  int received = 0;
  sigwait(&stop_signals, &received);
  (*server)->stop();
  fmt::print(stderr, "pacer serve: stopped by {}: {} requests answered, {} connections accepted\n",
             received == SIGINT ? "SIGINT" : "SIGTERM", (*server)->requests_answered(),
             (*server)->connections_accepted());
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  return to_int(ExitCode::kOk);
}

}  // namespace pacer::server
