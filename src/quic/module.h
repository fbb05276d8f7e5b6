// The HTTP/3 module's interface: the one header of src/quic/ the rest of pacer
// includes. QUIC (ngtcp2 with GnuTLS) and HTTP/3 (nghttp3) are built into a
// module of their own, pacer-http3.so beside the binary, which only an --http3
// run loads (engine/http3_module.h): every other run maps none of those
// libraries and skips GnuTLS's start-up, about 3 MB of its memory.
//
// Nothing here names a library type. The worker keeps the UDP socket, the
// datagrams (net/udp_io.h) and the clock; the module turns datagrams into
// request events through DatagramSession, as proto::Session does for bytes.
// The binary and the module come from one build: pacer_http3_module refuses a
// caller whose ModuleAbi differs (another version, or other type layouts).
//
// Thread: Module's calls are made on the main thread before workers start,
// except session(), which each worker calls for its own connections.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "net/address.h"
#include "net/tls_options.h"
#include "net/udp_io.h"
#include "proto/h2_memory.h"
#include "proto/http2_request.h"
#include "proto/session.h"

namespace pacer::quic {

// How a connection ended, for the error classes: kTls (handshake: certificate,
// alert), kPeerClosed (the server's CONNECTION_CLOSE with an error), kIdle (no
// packet for the idle timeout), kFailed (a local protocol or library failure).
enum class Ending : std::uint8_t { kNone, kIdle, kPeerClosed, kTls, kFailed };

// Defined inside the module; the binary holds them and destroys them through
// their virtual destructors.
class TlsConfig {  // GnuTLS credentials and options: one per run, then read-only
 public:
  virtual ~TlsConfig() = default;
};
class Tickets {  // one worker's resumption state (the newest TLS 1.3 ticket)
 public:
  virtual ~Tickets() = default;
};
class Requests {  // each request's HTTP/3 header list, one per target
 public:
  virtual ~Requests() = default;
};

struct SessionSetup {
  const TlsConfig* tls = nullptr;
  Tickets* tickets = nullptr;  // resumption (null: never resume)
  net::Address local;
  net::Address remote;
  TimeNs idle_timeout_ns = 30 * kNsPerS;
};

// One HTTP/3 connection as the worker drives it: proto::Session for requests
// (the byte-stream half is for the Session contract only), datagrams in and
// out, and QUIC's timers (loss recovery, ACK delay, idle timeout).
class DatagramSession : public proto::Session {
 public:
  // A new QUIC connection (the previous one, if any, is dropped); the Initial
  // packet is then waiting in datagrams(). False with error_reason() when the
  // libraries cannot set it up.
  virtual bool start(const SessionSetup& setup, TimeNs now) = 0;
  virtual bool handshake_completed() const = 0;
  virtual bool resumed() const = 0;
  // The connection ended (handshake failure, the server's CONNECTION_CLOSE, idle
  // timeout): how. closed_gracefully: the server closed with NO_ERROR.
  virtual Ending ending() const = 0;
  virtual bool closed_gracefully() const = 0;
  // One datagram received at `now`. False once the connection has ended.
  virtual bool receive_datagram(const std::uint8_t* data, std::size_t length, TimeNs now,
                                proto::SessionEvents& events) = 0;
  // Whether the last receive_datagram's datagram reached the connection (a
  // packet in it decrypted), rather than being dropped by ngtcp2 (another
  // connection ID, garbage, a stale key): only those are the run's bytes read.
  virtual bool last_datagram_accepted() const = 0;
  // The packets to send now, into datagrams(); the caller sends what it can and
  // marks it with PacketBatch::sent. False if the connection ended.
  virtual bool fill_datagrams(TimeNs now) = 0;
  virtual net::PacketBatch& datagrams() = 0;
  // A CONNECTION_CLOSE for the server, into datagrams(), before the socket closes.
  virtual void close(TimeNs now) = 0;
  // Drops the QUIC state (after close(), or when the connection failed).
  virtual void drop() = 0;
  // The worker wakes by next_timer_ns() (monotonic; INT64_MAX: none), then calls
  // on_timer(now), after which packets may be waiting. False once the connection ended.
  virtual TimeNs next_timer_ns() const = 0;
  virtual bool on_timer(TimeNs now) = 0;
};

class Module {
 public:
  // Bad --cacert/--cert/--key files are kBadInput naming the flag (exit 2).
  virtual Result<std::unique_ptr<TlsConfig>> tls(const net::TlsClientOptions& options) const = 0;
  // The start-up check of an --http3 run: one blocking QUIC handshake per address,
  // in order, within wait_ns each; the first that completes, or the last's reason.
  virtual Result<net::Address> probe(const std::vector<net::Address>& addresses, const TlsConfig& tls,
                                     TimeNs wait_ns) const = 0;
  // Over the HTTP/2 header lists (the same rules), which outlive the result.
  virtual std::unique_ptr<Requests> requests(std::span<const proto::Http2Request> requests) const = 0;
  virtual std::unique_ptr<Tickets> tickets() const = 0;
  // `streams` requests at once at most; ngtcp2's and nghttp3's memory from `memory`
  // (the worker's pool, which outlives the session).
  virtual std::unique_ptr<DatagramSession> session(const Requests& requests, std::uint32_t streams,
                                                   proto::H2Memory& memory) const = 0;
  // The libraries the module runs with, as `pacer --version` prints them:
  // "ngtcp2/X nghttp3/Y GnuTLS/Z" (their run-time versions).
  virtual std::string library_versions() const = 0;

 protected:
  ~Module() = default;
};

// What the binary and the module must agree on to share these types.
struct ModuleAbi {
  int interface = 2;  // raised when Module or DatagramSession changes
  std::size_t address = sizeof(net::Address);
  std::size_t setup = sizeof(SessionSetup);
  std::size_t tls_options = sizeof(net::TlsClientOptions);
  std::size_t request = sizeof(proto::Http2Request);
  std::size_t memory = sizeof(proto::H2Memory);
  std::size_t batch = sizeof(net::PacketBatch);
  bool operator==(const ModuleAbi&) const = default;
};

// The module's one exported symbol: its Module, or null when `version` (the
// caller's PACER_VERSION) or `abi` differ from the module's own.
inline constexpr const char* kModuleEntry = "pacer_http3_module";
using ModuleEntry = const Module* (*)(const char* version, const ModuleAbi* abi);

}  // namespace pacer::quic
