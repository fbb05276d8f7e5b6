// `pacer serve`: the built-in HTTP/1.1 test target (DESIGN.md section 8).
//
// Server owns the listening socket and `threads` workers, each an epoll loop on
// its own thread (see worker.h, connection.h). Routes, method-agnostic, query
// strings ignored; HEAD gets the head of the GET reply and no body:
//   /               200, "hello, pacer\n"
//   /bytes/N        200, exactly N bytes (N <= 1 GiB, else 400) of body_pattern()
//   /delay/MS       200 after MS ms (MS <= 1 hour, else 400); the worker serves others meanwhile
//   /pool/W/MS      200 "pool\n" once a pool of W workers of MS ms each has served it: first
//                   come, first served, so W*1000/MS per second at most (W in 1..1024, MS in
//                   1..60000, else 400). One pool per distinct W and MS, shared by all threads,
//                   at most 64 (then 503 saying so); calibration_pools.h. A connection's
//                   pipelined requests enter the pool one at a time, each once the reply
//                   before it is sent (as behind /delay)
//   /status/CODE    CODE for 200..599 (else 400); 204 and 304 carry no body
//   /fail/N         500 for every Nth /fail request, 200 otherwise (one server-wide
//                   counter for all N; N = 0 is 400)
//   /never          never answered; later input is discarded until the peer closes
//   /close          a 200 head with Content-Length: 100, then close, no body
//   /chunked/N      200, N bytes in chunks of at most 4096, then the 0-chunk
//                   (to an HTTP/1.0 client, which cannot take chunks: Content-Length)
//   /redirect       302, Location: /
//   /echo           200 application/octet-stream: the request's raw bytes as received
//   /stats          200 application/json {"requests_answered":N,"connections_accepted":M,
//                   "requests_by_name":{"GET /a":N,...}} (requests received per method and
//                   path without the query, as pacer names unnamed requests; path_counts.h)
//   anything else   404; a parameter that is not a number is 404 too
// Malformed requests get 400 and the connection is closed; request line plus
// headers over 16 KiB get 431 and a close. Requests are answered in order, also
// when pipelined. Connection: close and HTTP/1.0 without keep-alive close after
// the reply. No Date header; Expect: 100-continue is not answered (curl then
// sends the body after its own 1 s wait).
//
// Counting: a reply counts in requests_answered once its last byte has been
// accepted by the kernel. /close and /stats replies never count; the 400/431 for a
// malformed request does. If the peer closes (EOF, RDHUP, error) before a reply is
// fully written (a /delay in progress, /never, a freeze) that reply is cancelled and
// not counted; a half-closed peer counts as closed. A /pool request cancelled so keeps
// its place in its pool: the worker's time is spent all the same, as a real server
// finishes work it has queued. /stats requests are invisible:
// not counted as received, not logged, never start the freeze clock, and a
// connection whose first request is /stats is taken out of connections_accepted
// (put back if it later sends another route), so /stats reports the counts as they
// were without it. A reader running concurrently with such a connection may
// briefly see it counted.
//
// Freeze (freeze_at_ns >= 0, freeze_for_ns > 0): from first request + freeze_at for
// freeze_for, every worker that wakes sleeps until the window ends; connections
// stay open and replies due in the window go out after it.
//
// TLS (tls_cert_path): every connection does a server-side handshake first
// (non-blocking, ALPN http/1.1, session tickets for resumption), then the same
// routes as plain HTTP.
//
// Arrival log (log_arrivals_path): each worker records, in CLOCK_MONOTONIC ns, when
// the kernel received each fully parsed request (not /stats, not malformed ones;
// see net/receive_stamp.h; plain and TLS alike); stop() writes all of them,
// sorted, one per line.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "core/expected.h"
#include "core/unique_fd.h"
#include "net/tls_context.h"
#include "server/serve_config.h"
#include "server/shared_state.h"

namespace pacer::server {

class Worker;

class Server {
 public:
  // Binds config.listen_host:listen_port (SO_REUSEADDR), listens, and starts
  // config.threads workers. Connections are accepted once this returns. Errors
  // (bad config, cannot resolve or bind) name the address at fault.
  static Result<std::unique_ptr<Server>> start(const ServeConfig& config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The bound port (the kernel's choice when listen_port was 0).
  std::uint16_t port() const { return port_; }
  // Counters; safe from any thread, exact once the server is quiet.
  std::uint64_t requests_answered() const;
  std::uint64_t connections_accepted() const;
  std::uint64_t requests_received() const;  // fully parsed requests, /stats excluded
  std::uint64_t connections_open() const;

  // Stops accepting and serving, joins the workers, closes every connection and
  // writes the arrival log (an error is printed to stderr). Idempotent; called by
  // the destructor. Call from one thread at a time.
  void stop();

 private:
  // Only start() constructs a Server.
  Server(UniqueFd listen_fd, std::uint16_t port, const ServeConfig& config, std::optional<net::TlsContext> tls);

  std::optional<net::TlsContext> tls_;  // --tls; outlives the workers (declared before them)
  UniqueFd listen_fd_;
  std::uint16_t port_;
  SharedState shared_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  bool stopped_ = false;
};

// The `pacer serve` command: starts a Server, prints "pacer serve: listening on
// http://HOST:PORT/" to stdout (flushed), serves until SIGINT or SIGTERM, prints
// the final counts to stderr (https:// with --tls). Returns 0, 1 with a message
// when it cannot start, or 2 when the --tls files cannot be used.
int run_serve(const ServeConfig& config);

}  // namespace pacer::server
