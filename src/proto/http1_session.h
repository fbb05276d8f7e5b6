// HTTP/1.1 behind the Session seam: the prebuilt request bytes out, llhttp
// (ResponseParser) in. With a pipeline depth N, up to N requests are written
// back to back on one connection and their responses are matched in order (FIFO).
//
// --targets: the session is made with the run's prebuilt requests and submit()
// names which one a token sends. Queued requests of one target go out as one
// view into its repeated bytes; a pipelined batch mixing targets is gathered
// into the session's own buffer (made with the session: one write, no
// allocation per request; its own, because an engine may still be sending
// it while other connections write), a request too large for it being written
// from its own bytes.
//
// Invariants: ring_ holds the outstanding requests oldest first; the first
// `written_` of them are fully written, the next `queued_` wait for (part of)
// their bytes. Thread: the owning worker's.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "proto/http1_request.h"

#include "proto/http1_parser.h"
#include "proto/redirect.h"
#include "proto/response_inspect.h"
#include "proto/session.h"

namespace pacer::proto {

class Http1Session final : public Session {
 public:
  static constexpr std::uint32_t kMaxDepth = ResponseParser::kMaxOutstanding;

  // request: one request's bytes. repeated: the same bytes `depth` times in a
  // row (so several queued requests go out in one write); both outlive the session.
  // depth: 1..kMaxDepth. is_head: responses carry no body. known, parsers: the
  // worker's known response head and idle llhttp parsers (see ResponseParser), or nullptr.
  Http1Session(std::string_view request, std::string_view repeated, std::uint32_t depth, bool is_head,
               KnownHead* known = nullptr, LlhttpPool* parsers = nullptr);
  // --targets: requests[i] is what submit(token, i) sends (the span and its
  // bytes outlive the session). With several requests and depth > 1 the session
  // has a gather buffer of up to kGatherBytes.
  static constexpr std::size_t kGatherBytes = 16 * 1024;
  Http1Session(std::span<const Http1Bytes> requests, std::uint32_t depth, KnownHead* known,
               LlhttpPool* parsers = nullptr);

  void reset() override;
  std::uint32_t capacity() const override { return closing_ ? 0 : depth_; }
  void submit(std::uint32_t token, std::uint32_t target) override;
  // Scripts (depth 1): request `token` is `bytes` (owned by the caller until
  // written), holding `responses` requests (bit i of head_bits: the i-th is
  // HEAD); the session expects that many responses, the earlier ones reported
  // through on_batch_response.
  void submit_bytes(std::uint32_t token, std::string_view bytes, std::uint32_t responses, std::uint64_t head_bits);
  // The redirect chain of the request in flight (null without --follow-redirects):
  // during on_redirect, its owner may replace the follow-up's Cookie header.
  Redirector* redirector() { return redirector_.get(); }
  // Copies every response's headers and body into capture (a script's response()).
  void set_capture(ResponseCapture* capture) {
    parser_.set_capture(capture);
    parser_.reset();
  }
  // Follow redirects (follow_redirects > 0, depth 1 only) on target's
  // origin and/or decode bodies (decode). Before reset(); the known head then
  // stands in only for responses neither reads (see ResponseParser::set_inspect).
  void enable_wire(const Target& target, int follow_redirects, bool decode);
  const char* failure_detail() const override;
  std::span<const char> pending_output() override;
  void consume(std::size_t bytes) override;
  bool receive(const char* data, std::size_t len, SessionEvents& events) override;
  bool finish(SessionEvents& events) override;
  bool cancel(std::uint32_t) override { return false; }  // a request cannot be taken back
  const char* error_reason() const override { return parser_.error_reason(); }
  std::uint64_t body_bytes(std::uint32_t) const override { return parser_.body_bytes(); }
  std::string_view server(std::uint32_t) const override { return parser_.server(); }
  void keep_server(bool keep) override { parser_.keep_server(keep); }

 private:
  static void on_complete(void* context, int status, bool keep_alive);
  // The ring position of the i-th queued request.
  std::uint32_t queued_at(std::uint32_t i) const { return ring_at(written_ + i); }
  // The ring position of the i-th outstanding request (i < depth_).
  std::uint32_t ring_at(std::uint32_t i) const { return head_ + i < depth_ ? head_ + i : head_ + i - depth_; }
  void allocate_ring();  // by the constructors, once depth_ is known
  std::size_t largest_request() const;  // the most bytes of one of requests_
  std::span<const char> gather_queued();
  static void on_begin(void* context);  // the oldest outstanding request's first response byte
  // The final response to `token` is complete: follows a redirect, or
  // reports a decode failure, the decoded size and the response.
  void finish_response(std::uint32_t token, int status, bool keep_alive);
  // `token` failed; detail: why (a static string), nullptr: the Redirector's reason.
  void fail_request(std::uint32_t token, RequestFailure why, const char* detail);

  // Every HTTP/1.1 connection holds a session: what only some runs use is
  // behind a pointer or a size (issue 46).
  std::unique_ptr<Http1Bytes> single_;  // the one request of the first constructor (a static script's)
  std::span<const Http1Bytes> requests_;
  std::unique_ptr<char[]> gather_;      // a pipelined batch mixing requests (see above): gather_bytes_ long
  ResponseParser parser_;
  // The outstanding requests, a ring of depth_ entries oldest at head_: each one's
  // token and the request it sends (its index in requests_). In place for depth 1,
  // on the heap for a pipeline, so that a connection does not carry room for
  // kMaxDepth of them.
  struct Outstanding {
    std::uint32_t token = 0;
    std::uint32_t target = 0;
  };
  Outstanding single_entry_;
  std::unique_ptr<Outstanding[]> pipeline_entries_;
  Outstanding* ring_ = &single_entry_;
  std::uint32_t head_ = 0;
  std::uint32_t outstanding_ = 0;
  std::uint32_t written_ = 0;       // outstanding requests whose bytes are all written
  std::uint32_t queued_ = 0;        // outstanding requests with bytes still to write
  std::size_t offset_ = 0;          // bytes of the first queued request already written
  std::string_view custom_;         // submit_bytes(): the bytes of the queued request
  std::uint32_t batch_left_ = 0;    // submit_bytes(): responses still due for the oldest token
  std::uint32_t depth_;
  SessionEvents* events_ = nullptr; // during receive()/finish()
  // Redirects and body inspection (null unless enable_wire asked for them).
  std::unique_ptr<ResponseInspect> inspect_;
  std::unique_ptr<Redirector> redirector_;
  const char* failure_detail_ = "";  // nullptr: redirector_->reason() (formatted only when asked)
  std::uint32_t gather_bytes_ = 0;  // 0: no gather buffer (beside the flags: no padding)
  bool closing_ = false;            // no new requests on this connection
  bool chain_ = false;              // the oldest request's redirects may be followed
};

}  // namespace pacer::proto
