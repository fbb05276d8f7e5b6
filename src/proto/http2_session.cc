// Http2Session: nghttp2 in memory. See http2_session.h.
#include "proto/http2_session.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace pacer::proto {

namespace {

constexpr std::int32_t kMaxWindowBytes = std::numeric_limits<std::int32_t>::max();  // 2^31 - 1
constexpr std::uint32_t kNoToken = 0;

Http2Session& self_of(void* user_data) { return *static_cast<Http2Session*>(user_data); }

// A stream's place in stream_tokens_ (of `size`, a power of two).
std::size_t token_place(std::int32_t stream_id, std::size_t size) {
  return (static_cast<std::uint32_t>(stream_id) >> 1) & (size - 1);
}

// Tokens travel as stream user data, offset by one so that token 0 is not null.
void* as_user_data(std::uint32_t token) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(token) + 1); }

}  // namespace

Http2Session::Http2Session(std::span<const Http2Request> requests, std::uint32_t streams, H2Memory& memory)
    : requests_(requests),
      streams_(std::max<std::uint32_t>(streams, 1)),
      memory_(memory),
      stream_of_(streams_, 0),
      stream_tokens_(std::bit_ceil(2 * streams_)),
      status_(streams_, 0),
      body_sent_(streams_, 0),
      target_of_(streams_, 0),
      body_bytes_(streams_, 0),
      out_(std::make_unique<char[]>(kOutputBytes)) {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  callbacks_.reset(callbacks);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &Http2Session::on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Http2Session::on_frame_recv);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &Http2Session::on_begin_headers);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Http2Session::on_stream_close);
  nghttp2_option* option = nullptr;
  nghttp2_option_new(&option);
  option_.reset(option);
  // Until the server's SETTINGS arrive, open no more streams than every server
  // should allow (RFC 9113 recommends at least 100), so none is refused for it.
  nghttp2_option_set_peer_max_concurrent_streams(option, std::min<std::uint32_t>(streams_, 100));
}

void Http2Session::enable_wire(const Target& target, int follow_redirects, bool decode) {
  inspect_.clear();
  redirectors_.clear();
  for (std::uint32_t i = 0; i < streams_; ++i) {
    inspect_.push_back(std::make_unique<ResponseInspect>(follow_redirects > 0, decode));
    if (follow_redirects > 0) {
      redirectors_.push_back(std::make_unique<Redirector>(target, follow_redirects, 256, false));
    }
  }
  follow_headers_.assign(follow_redirects > 0 ? streams_ : 0, {});
  std::size_t most_headers = 0;
  for (const Http2Request& r : requests_) most_headers = std::max(most_headers, r.header_count());
  for (auto& headers : follow_headers_) headers.reserve(most_headers);
  body_started_.assign(streams_, false);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks_.get(), &Http2Session::on_data_chunk);
}

namespace {

nghttp2_nv no_copy(std::string_view name, std::string_view value) {
  nghttp2_nv nv{};
  nv.name = reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data()));
  nv.namelen = name.size();
  nv.value = reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data()));
  nv.valuelen = value.size();
  nv.flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
  return nv;
}

}  // namespace

bool Http2Session::follow_redirect(std::uint32_t token) {
  if (redirectors_.empty() || !is_followed_redirect(status_[token])) return false;
  Redirector& r = *redirectors_[token];
  const ResponseInspect& inspect = *inspect_[token];
  if (goaway_last_stream_ >= 0) {
    failure_detail_ = "redirect: the server's GOAWAY takes no follow-up on this connection";
  } else if (r.redirect(status_[token], inspect.location(), inspect.location_too_long()) ==
             Redirector::Step::kFail) {
    failure_detail_ = nullptr;  // r's reason, formatted only when asked (failure_detail())
    failed_chain_ = &r;
  } else {
    // The run's header list with :method and :path replaced (content headers
    // dropped with the body): views into the Redirector, stable until its next hop.
    std::vector<nghttp2_nv>& headers = follow_headers_[token];
    headers.clear();
    const Http2Request& request = requests_[target_of_[token]];
    for (std::size_t i = 0; i < request.header_count(); ++i) {
      const nghttp2_nv& nv = request.headers()[i];
      const std::string_view name(reinterpret_cast<const char*>(nv.name), nv.namelen);
      if (i == Http2Request::kMethodIndex) {
        headers.push_back(no_copy(name, r.method()));
      } else if (i == Http2Request::kPathIndex) {
        headers.push_back(no_copy(name, r.target()));
      } else if (!(r.body_dropped() && is_body_header(name))) {
        headers.push_back(nv);
      }
    }
    events_->on_redirect(token);
    if (submit_stream(token, headers.data(), headers.size(), request.has_body() && !r.body_dropped())) return true;
    failure_detail_ = "redirect: the follow-up could not be queued";
  }
  events_->on_request_failed(token, RequestFailure::kRedirect);
  return true;
}

const char* Http2Session::failure_detail() const {
  return failure_detail_ != nullptr ? failure_detail_ : failed_chain_->reason();
}

void Http2Session::reset() {
  session_.reset();
  nghttp2_session* session = nullptr;
  if (nghttp2_session_client_new3(&session, callbacks_.get(), this, option_.get(), memory_.mem()) != 0) {
    fail("nghttp2_session_client_new3 failed");
    return;
  }
  session_.reset(session);
  std::fill(stream_of_.begin(), stream_of_.end(), 0);
  std::fill(stream_tokens_.begin(), stream_tokens_.end(), StreamToken{});  // ids start again at 1
  out_begin_ = out_end_ = 0;
  frame_ = nullptr;
  frame_left_ = 0;
  goaway_last_stream_ = -1;
  goaway_error_code_ = 0;
  broken_ = false;
  error_reason_ = "";
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(kMaxWindowBytes)},
      // pacer sets no stream priorities: nghttp2 then keeps no RFC 7540 dependency
      // tree for its streams (RFC 9218), a cost on every stream's open and close.
      {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
  };
  // The client preface and SETTINGS go out with the first pending_output().
  if (nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings, std::size(settings)) != 0 ||
      nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, kMaxWindowBytes) != 0) {
    fail("cannot queue the HTTP/2 SETTINGS");
  }
}

std::uint32_t Http2Session::capacity() const {
  if (broken_ || session_ == nullptr || goaway_last_stream_ >= 0) return 0;
  const std::uint32_t allowed =
      nghttp2_session_get_remote_settings(session_.get(), NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
  return std::min(streams_, allowed);
}

void Http2Session::submit(std::uint32_t token, std::uint32_t target) {
  target_of_[token] = target;
  const Http2Request& request = requests_[target];
  if (!redirectors_.empty()) redirectors_[token]->start_target(request.method(), request.path());  // A new chain
  submit_stream(token, request.headers(), request.header_count(), request.has_body());
}

void Http2Session::keep_server(bool keep) {
  keep_server_ = keep;
  if (keep) server_.resize(streams_);  // once: each keeps its capacity
  if (!keep) std::vector<std::string>().swap(server_);  // the worker has its Server header (engine/exchange)
}

bool Http2Session::submit_stream(std::uint32_t token, const nghttp2_nv* headers, std::size_t count, bool with_body) {
  status_[token] = 0;
  body_sent_[token] = 0;
  body_bytes_[token] = 0;
  if (keep_server_) server_[token].clear();
  nghttp2_data_provider body{};
  body.read_callback = &Http2Session::read_body;
  const std::int32_t stream_id =
      nghttp2_submit_request(session_.get(), nullptr, headers, count, with_body ? &body : nullptr, as_user_data(token));
  if (stream_id < 0) {
    // Out of stream ids (2^31 requests on one connection) or out of memory.
    fail(nghttp2_strerror(stream_id));
    return false;
  }
  stream_of_[token] = stream_id;
  stream_tokens_[token_place(stream_id, stream_tokens_.size())] = {stream_id, token};
  return true;
}

std::span<const char> Http2Session::pending_output() {
  if (out_begin_ == out_end_) {
    out_begin_ = out_end_ = 0;
    while (session_ != nullptr && !broken_) {
      if (frame_left_ == 0) {
        const std::uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(session_.get(), &data);
        if (n < 0) {
          fail(nghttp2_strerror(static_cast<int>(n)));
          break;
        }
        if (n == 0) break;
        frame_ = data;
        frame_left_ = static_cast<std::size_t>(n);
      }
      const std::size_t room = kOutputBytes - out_end_;
      if (room == 0) break;
      const std::size_t take = std::min(room, frame_left_);
      std::memcpy(out_.get() + out_end_, frame_, take);
      out_end_ += take;
      frame_ += take;
      frame_left_ -= take;
    }
  }
  return {out_.get() + out_begin_, out_end_ - out_begin_};
}

void Http2Session::consume(std::size_t bytes) { out_begin_ += std::min(bytes, out_end_ - out_begin_); }

bool Http2Session::receive(const char* data, std::size_t len, SessionEvents& events) {
  if (session_ == nullptr) return false;
  events_ = &events;
  const ssize_t n = nghttp2_session_mem_recv(session_.get(), reinterpret_cast<const std::uint8_t*>(data), len);
  events_ = nullptr;
  if (n < 0) {
    fail(nghttp2_strerror(static_cast<int>(n)));
    return false;
  }
  return true;
}

bool Http2Session::finish(SessionEvents&) {
  broken_ = true;
  // Every HTTP/2 response ends with END_STREAM, never with the connection's end.
  const bool any_open = std::any_of(stream_of_.begin(), stream_of_.end(), [](std::int32_t s) { return s != 0; });
  if (any_open) error_reason_ = "connection closed with HTTP/2 streams open";
  return !any_open;
}

bool Http2Session::cancel(std::uint32_t token) {
  const std::int32_t stream_id = stream_of_[token];
  stream_of_[token] = 0;  // whatever the stream does next is ignored
  if (stream_id == 0 || session_ == nullptr) return true;
  return nghttp2_submit_rst_stream(session_.get(), NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL) == 0;
}

std::int64_t Http2Session::token_of(std::int32_t stream_id) const {
  if (stream_id <= 0) return -1;  // the connection's own frames
  std::uint32_t token = 0;
  if (const StreamToken& known = stream_tokens_[token_place(stream_id, stream_tokens_.size())];
      known.stream_id == stream_id) {
    token = known.token;
  } else {  // a newer stream took its place
    void* data = nghttp2_session_get_stream_user_data(session_.get(), stream_id);
    if (data == nullptr) return -1;
    token = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data) - 1);
  }
  if (token >= stream_of_.size() || stream_of_[token] != stream_id) return -1;
  return token;
}

void Http2Session::complete(std::uint32_t token) {
  stream_of_[token] = 0;
  if (!inspect_.empty()) {  // --follow-redirects, --compressed
    if (follow_redirect(token)) return;
    ResponseInspect& inspect = *inspect_[token];
    if (!body_started_[token]) inspect.head_done();
    if (!inspect.end_body()) {
      failure_detail_ = inspect.decode_reason();
      events_->on_request_failed(token, RequestFailure::kDecode);
      return;
    }
    if (inspect.decodes()) events_->on_decoded(token, inspect.decoded_bytes());
  }
  events_->on_response(token, status_[token]);
}

void Http2Session::refuse_unprocessed() {
  // Every stream above last_stream_id, whether nghttp2 has sent its HEADERS or
  // still holds them behind a write in flight (io_uring's sends complete later):
  // nghttp2 closes the sent ones after this callback and drops the queued ones in
  // a later mem_send, outside receive(), where nothing could be reported. Each
  // token is settled here, once; those closes then find no token (token_of).
  const RequestFailure why = goaway_error_code_ == NGHTTP2_NO_ERROR ? RequestFailure::kRefused : RequestFailure::kGoaway;
  for (std::uint32_t token = 0; token < streams_; ++token) {
    if (stream_of_[token] <= goaway_last_stream_) continue;  // free (0), or processed by the server
    stream_of_[token] = 0;
    events_->on_request_failed(token, why);
  }
}

void Http2Session::fail(const char* reason) {
  broken_ = true;
  error_reason_ = reason;
}

int Http2Session::on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                            std::size_t namelen, const std::uint8_t* value, std::size_t valuelen, std::uint8_t,
                            void* user_data) {
  Http2Session& self = self_of(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  if (self.keep_server_ || self.report_headers_) {
    const std::int64_t token = self.token_of(frame->hd.stream_id);
    if (token >= 0) {
      self.note_header(static_cast<std::uint32_t>(token), {reinterpret_cast<const char*>(name), namelen},
                       {reinterpret_cast<const char*>(value), valuelen});
    }
  }
  if (!self.inspect_.empty() && (namelen != 7 || std::memcmp(name, ":status", 7) != 0)) {
    const std::int64_t token = self.token_of(frame->hd.stream_id);
    if (token >= 0) {
      self.inspect_[static_cast<std::size_t>(token)]->field({reinterpret_cast<const char*>(name), namelen},
                                                            {reinterpret_cast<const char*>(value), valuelen});
    }
    return 0;
  }
  if (namelen != 7 || std::memcmp(name, ":status", 7) != 0) return 0;
  const std::int64_t token = self.token_of(frame->hd.stream_id);
  if (token < 0) return 0;
  // nghttp2 checks only that it is three digits; as for HTTP/1.1, a status
  // outside 100-599 ("006") is a malformed response, not a status.
  int status = 0;
  for (std::size_t i = 0; i < valuelen && i < 3; ++i) status = status * 10 + (value[i] - '0');
  const auto t = static_cast<std::uint32_t>(token);
  if (valuelen != 3 || status < 100 || status > 599) {
    self.stream_of_[t] = 0;  // what the stream does next is ignored
    self.events_->on_request_failed(t, RequestFailure::kMalformed);
    nghttp2_submit_rst_stream(self.session_.get(), NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_PROTOCOL_ERROR);
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  }
  self.status_[t] = status;
  return 0;
}

void Http2Session::note_header(std::uint32_t t, std::string_view name, std::string_view value) {
  constexpr std::size_t kMaxServerBytes = 256;  // a longer Server header is cut there
  if (report_headers_ && events_ != nullptr) events_->on_header(t, name, value);
  if (keep_server_ && name == "server") server_[t].assign(value.substr(0, kMaxServerBytes));
}

// Time to first byte: a stream's response starts with its first HEADERS frame
// (the engine keeps the first report per request, so trailers change nothing).
int Http2Session::on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  Http2Session& self = self_of(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS || self.events_ == nullptr) return 0;
  const std::int64_t token = self.token_of(frame->hd.stream_id);
  if (token < 0) return 0;
  const auto t = static_cast<std::uint32_t>(token);
  self.events_->on_first_byte(t);
  if (!self.inspect_.empty() && frame->headers.cat == NGHTTP2_HCAT_RESPONSE) {
    self.inspect_[t]->begin();
    self.body_started_[t] = false;
  }
  return 0;
}

// --compressed: a stream's body, to its decoder (its coding is known by
// its first DATA frame: every header block before it has been read).
int Http2Session::on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                                std::size_t len, void* user_data) {
  Http2Session& self = self_of(user_data);
  const std::int64_t token = self.token_of(stream_id);
  if (token < 0 || self.inspect_.empty()) return 0;
  const auto t = static_cast<std::uint32_t>(token);
  if (!self.body_started_[t]) {
    self.inspect_[t]->head_done();
    self.body_started_[t] = true;
  }
  if (!self.inspect_[t]->body(reinterpret_cast<const char*>(data), len)) {
    // Past the decoded-size cap: a decode error now, not at the
    // stream's end, which an endless compressed stream never reaches. The stream is
    // reset; the connection carries on.
    self.stream_of_[t] = 0;  // what the stream does next is ignored
    self.failure_detail_ = self.inspect_[t]->decode_reason();
    self.events_->on_request_failed(t, RequestFailure::kDecode);
    nghttp2_submit_rst_stream(self.session_.get(), NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
  }
  return 0;
}

int Http2Session::on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  Http2Session& self = self_of(user_data);
  switch (frame->hd.type) {
    case NGHTTP2_GOAWAY:
      self.goaway_last_stream_ = frame->goaway.last_stream_id;
      self.goaway_error_code_ = frame->goaway.error_code;
      self.refuse_unprocessed();
      break;
    case NGHTTP2_DATA:
      // The body's length (ab's document length): each DATA frame's payload less its padding.
      if (const std::int64_t token = self.token_of(frame->hd.stream_id); token >= 0) {
        self.body_bytes_[static_cast<std::size_t>(token)] += frame->hd.length - frame->data.padlen;
        if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) self.complete(static_cast<std::uint32_t>(token));
      }
      break;
    case NGHTTP2_HEADERS:
      if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
        const std::int64_t token = self.token_of(frame->hd.stream_id);
        if (token >= 0) self.complete(static_cast<std::uint32_t>(token));
      }
      break;
    default:
      break;
  }
  return 0;
}

int Http2Session::on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code,
                                  void* user_data) {
  Http2Session& self = self_of(user_data);
  // Outside receive() (during mem_send, or while a session is deleted) nothing is
  // reported. Requests a GOAWAY refused (nghttp2 closes them after the GOAWAY
  // and drops the unsent ones in mem_send) were settled when it arrived
  // (refuse_unprocessed); any other lost there ends at its timeout.
  if (self.events_ == nullptr) return 0;
  const std::int64_t token = self.token_of(stream_id);
  if (token < 0) return 0;  // completed, cancelled or refused already
  if (error_code == NGHTTP2_NO_ERROR) return 0;  // closed cleanly without END_STREAM: cannot happen with a conforming server
  const auto t = static_cast<std::uint32_t>(token);
  self.stream_of_[t] = 0;
  self.events_->on_request_failed(t, RequestFailure::kStreamReset);
  return 0;
}

ssize_t Http2Session::read_body(nghttp2_session*, std::int32_t stream_id, std::uint8_t* buf, std::size_t length,
                                std::uint32_t* data_flags, nghttp2_data_source*, void* user_data) {
  Http2Session& self = self_of(user_data);
  const std::int64_t token = self.token_of(stream_id);
  if (token < 0) {
    *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return 0;
  }
  const std::string& body = self.requests_[self.target_of_[static_cast<std::size_t>(token)]].body();
  std::size_t& sent = self.body_sent_[static_cast<std::size_t>(token)];
  const std::size_t n = std::min(length, body.size() - sent);
  std::memcpy(buf, body.data() + sent, n);
  sent += n;
  if (sent == body.size()) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace pacer::proto
