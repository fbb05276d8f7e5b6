// One accepted HTTP/1.1 connection of `pacer serve`: reads and parses requests
// (llhttp, pipelining), answers them in order, and writes with partial-write
// handling. Owned by the worker thread that accepted it, touched by no other.
//
// Buffers are allocated once per pooled object and reused across connections:
// the input buffer holds unparsed bytes plus the current request from its first
// byte until its headers are complete (so the route is known before those bytes
// are dropped, and /echo can copy them); the output buffer holds heads and small
// bodies; large bodies are written straight from static memory (BodyStream).
// While a streamed body, a delay or /never is pending, parsing pauses and later
// pipelined requests wait in the input buffer.
//
// TLS (--tls): the connection starts in kHandshaking and becomes kReady when the
// handshake completes; input and output then go through tls_ (one SSL_write per
// buffer rather than sendmsg's gather).
//
// Counting: a reply counts toward requests_answered when its last byte has been
// accepted by the kernel. A peer close, EOF or socket error closes the connection
// at once and cancels whatever was not yet fully written (a half-close counts as
// a close).
#pragma once

#include <llhttp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/unique_fd.h"
#include "net/tls_stream.h"
#include "server/body_stream.h"
#include "server/loop_context.h"
#include "server/routes.h"

namespace pacer::server {

class Connection {
 public:
  static constexpr std::size_t kInputBytes = 16 * 1024;   // also the limit on request line + headers
  static constexpr std::size_t kOutputBytes = 16 * 1024;
  static constexpr std::size_t kMaxPendingReplies = 64;   // counted replies queued but not yet written

  Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Takes an accepted, non-blocking socket and resets all per-connection state.
  void open(UniqueFd socket, LoopContext& ctx);
  // An epoll event (EPOLLIN/OUT/RDHUP/HUP/ERR) for this connection's socket.
  void on_event(std::uint32_t events, LoopContext& ctx);
  // The /delay timer set for generation expired; ignored if stale.
  void on_timer(std::uint64_t generation, LoopContext& ctx);
  // Continue a turn that stopped because it spent its byte budget; ignored if stale.
  void resume(std::uint64_t generation, LoopContext& ctx);
  // Closes the socket now, cancelling anything unwritten. Idempotent.
  void close(LoopContext& ctx);

  bool is_closed() const { return state_ == State::kClosed; }
  std::uint64_t generation() const { return generation_; }
  ConnectionRef ref() { return ConnectionRef{this, generation_}; }

 private:
  enum class State : std::uint8_t { kHandshaking, kReady, kDelayed, kNever, kClosed };

  static int on_message_begin(llhttp_t* parser);
  static int on_url(llhttp_t* parser, const char* at, std::size_t length);
  static int on_headers_complete(llhttp_t* parser);
  static int on_message_complete(llhttp_t* parser);
  static const llhttp_settings_t& parser_settings();

  void service(LoopContext& ctx);
  void process_input(LoopContext& ctx);
  void release_parsed_input();
  void complete_request(LoopContext& ctx);
  void count_request(LoopContext& ctx);
  void queue_reply(Reply reply);
  void queue_error(int status);
  bool flush(LoopContext& ctx, std::size_t& budget_bytes);
  // Writes some of iov (plain: all entries with sendmsg; TLS: iov[0]). Returns the
  // bytes written, kWriteBlocked or kWriteFailed.
  static constexpr ssize_t kWriteBlocked = -1;
  static constexpr ssize_t kWriteFailed = -2;
  ssize_t write_iov(const iovec* iov, int count);
  bool read_input(LoopContext& ctx, std::size_t& budget_bytes);
  void compact_input();
  void close_gracefully(LoopContext& ctx);
  std::size_t output_free_bytes() const { return kOutputBytes - out_end_; }

  void continue_handshake(LoopContext& ctx);

  UniqueFd fd_;
  net::TlsStream tls_;              // --tls: active from open() to close(); inactive for plain HTTP
  State state_ = State::kClosed;
  std::uint64_t generation_ = 0;
  bool maybe_readable_ = false;     // edge-triggered: unread input may remain
  bool close_after_write_ = false;
  bool counted_connection_ = true;  // included in connections_accepted
  std::uint64_t requests_seen_ = 0;

  llhttp_t parser_{};
  std::unique_ptr<char[]> in_;
  std::size_t in_end_ = 0;          // bytes held
  std::size_t parse_pos_ = 0;       // bytes given to the parser
  std::size_t request_start_ = 0;   // first byte still kept for the current request
  TimeNs input_arrival_ns_ = 0;     // --log-arrivals: kernel receive time of the last read

  // The request being parsed. URL offsets are relative to request_start_.
  std::size_t url_begin_ = 0;
  std::size_t url_end_ = 0;
  bool url_seen_ = false;
  bool headers_done_ = false;
  bool is_head_ = false;
  bool keep_alive_ = true;
  bool is_http10_ = false;
  Route route_;
  // The request's "METHOD path" for /stats' requests_by_name (path without the
  // query, cut to PathCounts::kMaxKeyBytes), noted when its headers are complete.
  std::string_view method_;
  std::array<char, PathCounts::kMaxKeyBytes> path_{};
  std::size_t path_bytes_ = 0;
  std::string stats_text_;          // a /stats reply's JSON (capacity reused)
  std::string echo_;                // raw bytes of an /echo request (capacity reused)
  Reply delayed_reply_;             // the reply a kDelayed connection will send

  std::unique_ptr<char[]> out_;
  std::size_t out_begin_ = 0;
  std::size_t out_end_ = 0;
  BodyStream stream_;               // body bytes that follow everything in out_
  std::array<char, 16> chunk_scratch_{};
  std::array<char, 128> text_scratch_{};

  // Reply ends as byte offsets on the connection, for counting once written.
  std::uint64_t queued_bytes_ = 0;
  std::uint64_t written_bytes_ = 0;
  std::array<std::uint64_t, kMaxPendingReplies> pending_ends_{};
  std::size_t pending_first_ = 0;
  std::size_t pending_count_ = 0;
};

}  // namespace pacer::server
