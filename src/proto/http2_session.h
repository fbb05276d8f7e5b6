// HTTP/2 behind the Session seam, through nghttp2 driven purely in memory
// (nghttp2_session_mem_send / mem_recv): nghttp2 never sees a socket. Requests
// are streams; `streams` of them may be open at once (fewer if the server's
// SETTINGS_MAX_CONCURRENT_STREAMS says so). Flow-control windows are opened to
// the maximum so the server is never throttled by the client.
//
// A stream reset by the server ends its request as kStreamReset; streams a
// GOAWAY refused end as kRefused when the GOAWAY is graceful (NO_ERROR: nginx
// after keepalive_requests) and as kGoaway otherwise, all of them when the GOAWAY
// is read: those above its last_stream_id, including requests nghttp2 still
// queues unsent behind a write in flight (it never sends them). After a GOAWAY the session
// takes no new requests (capacity 0): the worker reconnects once the rest complete.
//
// With --follow-redirects a redirect's follow-up is a new stream under the
// same token (its header list the run's with :method and :path replaced); with
// --compressed each token's body goes through its own decoder.
//
// Invariant: stream_of_[token] is the stream carrying `token`, 0 when the token
// is free; callbacks for any other stream (a cancelled or refused one) are ignored.
// Thread: the owning worker's; all memory comes from that worker's H2Memory.
#pragma once

#include <nghttp2/nghttp2.h>

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "proto/h2_memory.h"
#include "proto/http2_request.h"
#include "proto/redirect.h"
#include "proto/response_inspect.h"
#include "proto/session.h"

namespace pacer::proto {

class Http2Session final : public Session {
 public:
  // streams: requests in flight at most (>= 1). request and memory outlive the session.
  Http2Session(const Http2Request& request, std::uint32_t streams, H2Memory& memory)
      : Http2Session(std::span<const Http2Request>(&request, 1), streams, memory) {}
  // --targets: submit(token, i) sends requests[i]; the requests outlive the session.
  Http2Session(std::span<const Http2Request> requests, std::uint32_t streams, H2Memory& memory);

  void reset() override;
  std::uint32_t capacity() const override;
  void submit(std::uint32_t token, std::uint32_t target) override;
  std::span<const char> pending_output() override;
  void consume(std::size_t bytes) override;
  bool receive(const char* data, std::size_t len, SessionEvents& events) override;
  bool finish(SessionEvents& events) override;
  bool cancel(std::uint32_t token) override;
  const char* error_reason() const override { return error_reason_; }
  // Follow redirects (follow_redirects > 0) on target's origin, each
  // follow-up a new stream under the same token, and/or decode every stream's
  // body (decode; one decoder per stream slot, its codecs created on first use).
  // Before reset().
  void enable_wire(const Target& target, int follow_redirects, bool decode);
  const char* failure_detail() const override;
  std::uint64_t body_bytes(std::uint32_t token) const override { return body_bytes_[token]; }
  std::string_view server(std::uint32_t token) const override {
    return keep_server_ ? std::string_view(server_[token]) : std::string_view();
  }
  void keep_server(bool keep) override;
  void report_headers(bool on) override { report_headers_ = on; }

 private:
  struct SessionDeleter {
    void operator()(nghttp2_session* s) const { nghttp2_session_del(s); }
  };
  struct CallbacksDeleter {
    void operator()(nghttp2_session_callbacks* c) const { nghttp2_session_callbacks_del(c); }
  };
  struct OptionDeleter {
    void operator()(nghttp2_option* o) const { nghttp2_option_del(o); }
  };

  // keep_server, report_headers: a header field of the stream of token t.
  void note_header(std::uint32_t t, std::string_view name, std::string_view value);
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t namelen,
                       const std::uint8_t* value, std::size_t valuelen, std::uint8_t flags, void* user_data);
  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data);
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data);
  static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code, void* user_data);
  static int on_data_chunk(nghttp2_session*, std::uint8_t flags, std::int32_t stream_id, const std::uint8_t* data,
                           std::size_t len, void* user_data);
  static ssize_t read_body(nghttp2_session*, std::int32_t stream_id, std::uint8_t* buf, std::size_t length,
                                 std::uint32_t* data_flags, nghttp2_data_source* source, void* user_data);

  // The token whose current stream is stream_id, or -1.
  std::int64_t token_of(std::int32_t stream_id) const;
  void complete(std::uint32_t token);
  // A GOAWAY arrived: every request on a stream above its last_stream_id fails now
  // (kRefused when graceful, else kGoaway), sent or still queued in nghttp2.
  void refuse_unprocessed();
  // The token's response is a redirect to follow: its follow-up is submitted
  // (true), or the chain failed (reported; true). False: not a followed redirect.
  bool follow_redirect(std::uint32_t token);
  // Submits token's request: the run's, or its redirect chain's current one.
  bool submit_stream(std::uint32_t token, const nghttp2_nv* headers, std::size_t count, bool with_body);
  void fail(const char* reason);

  std::span<const Http2Request> requests_;
  std::uint32_t streams_;
  H2Memory& memory_;
  std::unique_ptr<nghttp2_session_callbacks, CallbacksDeleter> callbacks_;
  std::unique_ptr<nghttp2_option, OptionDeleter> option_;
  std::unique_ptr<nghttp2_session, SessionDeleter> session_;
  std::vector<std::int32_t> stream_of_;    // per token
  // Which token a stream carries, at (stream id / 2) & mask: this client's ids are
  // odd and consecutive, so the streams in flight seldom share a place. token_of
  // asks nghttp2's map only for a stream whose place a newer one took (four
  // lookups a request before, issue 46).
  struct StreamToken {
    std::int32_t stream_id = 0;
    std::uint32_t token = 0;
  };
  std::vector<StreamToken> stream_tokens_;
  std::vector<int> status_;                // per token: the final :status seen
  std::vector<std::size_t> body_sent_;     // per token: request body bytes handed to nghttp2
  std::vector<std::uint32_t> target_of_;   // per token: the request (index into requests_) it sends
  std::vector<std::uint64_t> body_bytes_;  // per token: its response's DATA so far (padding aside)
  std::vector<std::string> server_;        // per token, with keep_server: its response's Server header
  bool keep_server_ = false;
  bool report_headers_ = false;            // --trace: header fields go to SessionEvents::on_header
  // nghttp2_session_mem_send yields one frame per call; frames are gathered here
  // so that ten requests (or a SETTINGS ack and a WINDOW_UPDATE) go out in one write.
  static constexpr std::size_t kOutputBytes = 16 * 1024;
  std::unique_ptr<char[]> out_;
  std::size_t out_begin_ = 0;              // next byte to write
  std::size_t out_end_ = 0;
  const std::uint8_t* frame_ = nullptr;    // the rest of a frame that did not fit (valid until the next mem_send)
  std::size_t frame_left_ = 0;
  std::int32_t goaway_last_stream_ = -1;   // >= 0 once a GOAWAY arrived
  std::uint32_t goaway_error_code_ = 0;
  bool broken_ = false;                    // nghttp2 failed: no new requests
  const char* error_reason_ = "";
  SessionEvents* events_ = nullptr;        // during receive()/finish()
  std::vector<std::unique_ptr<ResponseInspect>> inspect_;  // per token, with --follow-redirects or --compressed
  std::vector<bool> body_started_;         // per token, the decoder has its coding
  std::vector<std::unique_ptr<Redirector>> redirectors_;  // per token, with --follow-redirects only
  std::vector<std::vector<nghttp2_nv>> follow_headers_;   // per token, its follow-up's header list
  const char* failure_detail_ = "";
  const Redirector* failed_chain_ = nullptr;  // failure_detail_ == nullptr: the chain whose reason it is
};

}  // namespace pacer::proto
