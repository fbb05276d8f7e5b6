// The CONNECT tunnel through an HTTP proxy (RFC 9110 section 9.3.6): the request,
// the proxy's reply, and one non-blocking step on a socket, so the connection's
// transport runs it as a stage before TLS (engine/conn/transport.cc) and the
// start-up probe runs it blocking (tunnel_blocking).
//
// The reply is read with MSG_PEEK and then exactly its bytes are taken, so what
// follows it (the target's first bytes) stays in the socket for TLS or the
// session. A reply larger than kMaxReplyBytes, or one that is not HTTP/1.x, is
// malformed. No allocation in tunnel_step (the peek buffer is on the stack).
// Any thread; the socket's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::proxy {

inline constexpr std::size_t kMaxReplyBytes = 8192;
// Why a reply failed with EMSGSIZE (a head that is HTTP/1.x but does not end within the cap).
inline constexpr const char* kReplyTooLarge = "its answer to CONNECT has a head longer than 8 KiB, the most pacer reads";

// "CONNECT host:port HTTP/1.1", Host, Proxy-Authorization when the proxy has credentials.
std::string connect_request(const Target& target, const ProxyConfig& proxy);

struct ConnectReply {
  enum class State : std::uint8_t { kIncomplete, kDone, kMalformed, kTooLarge };  // kTooLarge: no end within kMaxReplyBytes
  State state = State::kIncomplete;
  int status = 0;                 // kDone: the proxy's status code
  std::size_t header_bytes = 0;   // kDone: the reply's length (status line to the blank line)
  std::string_view reason;        // kDone: the reason phrase (a view into the input)
};

// Parses the start of what the proxy sent. Incomplete until the blank line ends
// the header; a reply to CONNECT has no body that counts (a 2xx has none; a refusal
// is final, so its body is never read). Pure; fuzzed (fuzz/).
ConnectReply parse_connect_reply(std::string_view bytes);

enum class TunnelStatus : std::uint8_t {
  kWantRead,   // wait for the socket to be readable, then step again
  kWantWrite,  // wait for it to be writable
  kOpen,       // the proxy answered 2xx: the tunnel carries the target's bytes
  kRefused,    // the proxy answered another status (`status`)
  kFailed,     // a socket error (`err`), the proxy closed (err 0), a malformed reply (err EPROTO), a head past kMaxReplyBytes (EMSGSIZE)
};

struct TunnelProgress {
  TunnelStatus status = TunnelStatus::kWantWrite;
  int http_status = 0;  // kRefused, kOpen
  int err = 0;          // kFailed
};

// One step: sends what is left of `request` (`sent` counts its bytes across
// steps), then looks for the reply.
TunnelProgress tunnel_step(int fd, std::string_view request, std::uint32_t& sent);

// A refusal in words, into `out` (fixed size, no allocation): "proxy answered
// CONNECT with 407" and a hint for 407/403/502. Returns out.
const char* describe_refusal(int status, char* out, std::size_t size);

// The start-up probe: the whole exchange on a connected non-blocking socket,
// waiting at most timeout_ns. Errors (kRuntime) say what the proxy answered.
Status tunnel_blocking(int fd, std::string_view request, TimeNs timeout_ns);

}  // namespace pacer::proxy
