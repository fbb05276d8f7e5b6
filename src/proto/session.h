// The protocol seam: one engine, one Session per connection, whatever the HTTP
// version. The worker owns the socket, the clock and the request slots; a Session
// only turns "submit request `token`" into bytes to send and received bytes into
// "request `token` finished" events. It never touches a socket, so a transport
// (TCP, TLS) can sit between it and the network; HTTP/3 keeps its QUIC
// connection inside the session (quic/http3_session.h).
//
// Tokens are the worker's request-slot indexes on one connection (0..capacity-1):
// a token is in flight from submit() until exactly one event names it (on_response
// or on_request_failed), or until reset() forgets it.
//
// Thread: a Session and its SessionEvents are owned and touched by one worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace pacer::proto {

// Why a request ended without a response, as the protocol reports it.
enum class RequestFailure : std::uint8_t {
  kStreamReset,  // HTTP/2: the server reset the stream (RST_STREAM)
  kGoaway,       // HTTP/2: a GOAWAY with an error code refused the stream before processing it
  kRefused,      // HTTP/2: a graceful GOAWAY (NO_ERROR) refused the stream: not processed, safe to send again
  kMalformed,    // HTTP/2: the response is malformed (a :status not three digits 100-599); the stream is reset
  // Session::failure_detail() says why:
  kRedirect,     // --follow-redirects: the redirect could not be followed (another origin, a loop, too many hops)
  kDecode,       // --compressed: the body did not decode
};

// Implemented by the engine. Called from inside Session::receive() only.
class SessionEvents {
 public:
  // The final response to `token` is complete (its last byte was in this receive()).
  virtual void on_response(std::uint32_t token, int status) = 0;
  virtual void on_request_failed(std::uint32_t token, RequestFailure why) = 0;
  // HTTP/1.1 with a script whose request() returned several requests under one
  // token: each response but the last (which comes as on_response).
  virtual void on_batch_response(std::uint32_t /*token*/, int /*status*/) {}
  // Time to first byte: the first byte of a response to `token` is in the
  // bytes this receive() was given (HTTP/1.1: the status line of any response,
  // interim ones too; HTTP/2: the first HEADERS frame of its stream). May fire
  // more than once per request (a 100 Continue, then the final response); the
  // engine keeps the first since the request was (re)sent.
  virtual void on_first_byte(std::uint32_t /*token*/) {}
  // --follow-redirects: `token` got a redirect, and its follow-up request is
  // queued on the same connection (the token stays in flight).
  virtual void on_redirect(std::uint32_t /*token*/) {}
  // --compressed: the final response to `token` decoded to `bytes` (just before its on_response).
  virtual void on_decoded(std::uint32_t /*token*/, std::uint64_t /*bytes*/) {}
  // A response header field of `token` (HTTP/2, HTTP/3: lower-case names,
  // pseudo-headers too), only while Session::report_headers(true).
  virtual void on_header(std::uint32_t /*token*/, std::string_view /*name*/, std::string_view /*value*/) {}

 protected:
  ~SessionEvents() = default;
};

class Session {
 public:
  virtual ~Session() = default;

  // A new connection is established (after the TLS handshake, if any): forgets
  // every request of the previous one and queues the protocol's preamble (the
  // HTTP/2 preface and SETTINGS).
  virtual void reset() = 0;

  // Requests this connection can carry at once now: the pipeline depth or stream
  // count the user asked for, lowered by what the server allows. 0 once the
  // connection must not take new requests (a GOAWAY, or `Connection: close`).
  virtual std::uint32_t capacity() const = 0;

  // Queues request `token`, sending the run's request number `target` (an index
  // into the prebuilt requests the session was made with: 0 without --targets).
  // The caller keeps in-flight requests below capacity().
  virtual void submit(std::uint32_t token, std::uint32_t target) = 0;

  // The next bytes to write (empty when nothing is waiting). The view stays valid
  // until consume() or the next pending_output(); write what you can, then
  // consume() that many bytes.
  virtual std::span<const char> pending_output() = 0;
  virtual void consume(std::size_t bytes) = 0;

  // Bytes read from the connection. Events fire from inside. Returns false on a
  // protocol error (malformed response, bad frame): the connection must be closed
  // and its requests in flight count as parse errors.
  virtual bool receive(const char* data, std::size_t len, SessionEvents& events) = 0;

  // The peer closed its side. Completes an HTTP/1.1 body delimited by the close.
  // Returns false if a response was cut short.
  virtual bool finish(SessionEvents& events) = 0;

  // Gives up on `token` (its timeout passed). True if the connection can carry
  // on (HTTP/2 resets the stream); false if it must be closed (HTTP/1.1).
  virtual bool cancel(std::uint32_t token) = 0;

  // Why the last receive()/finish() failed (a static string).
  virtual const char* error_reason() const = 0;

  // Why the last on_request_failed(kRedirect or kDecode) request failed;
  // valid until the next receive().
  virtual const char* failure_detail() const { return ""; }

  // ab's report fields (issue 33), read inside on_response/on_batch_response of
  // `token`: its final response's body length on the wire (de-chunked, before
  // --compressed decoding; 0 for a HEAD, 204 or 304), and its Server header
  // ("" when it had none) if keep_server(true) was asked before reset().
  virtual std::uint64_t body_bytes(std::uint32_t /*token*/) const { return 0; }
  virtual std::string_view server(std::uint32_t /*token*/) const { return {}; }
  virtual void keep_server(bool /*keep*/) {}

  // --trace of HTTP/2 and HTTP/3: while on (from now on), each response header
  // field of every stream (:status first) goes to SessionEvents::on_header.
  virtual void report_headers(bool /*on*/) {}
};

}  // namespace pacer::proto
