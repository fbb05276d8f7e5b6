// llhttp glue for ResponseParser. The callbacks are static functions reached
// through llhttp's `data` pointer: no allocation, no std::function.
#include "proto/http1_parser.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace pacer::proto {

namespace {
ResponseParser* self_of(llhttp_t* parser) { return static_cast<ResponseParser*>(parser->data); }
}  // namespace

const llhttp_settings_t& ResponseParser::settings() {
  static const llhttp_settings_t kSettings = [] {
    llhttp_settings_t s{};
    llhttp_settings_init(&s);
    s.on_message_begin = &ResponseParser::on_message_begin;
    s.on_headers_complete = &ResponseParser::on_headers_complete;
    s.on_message_complete = &ResponseParser::on_message_complete;
    s.on_body = &ResponseParser::on_body;  // counts the body (ab's document length)
    return s;
  }();
  return kSettings;
}

// The same callbacks plus the copies a script's response() needs; chosen at
// reset() so a parser without a capture pays nothing for it.
const llhttp_settings_t& ResponseParser::capturing_settings() {
  static const llhttp_settings_t kSettings = [] {
    llhttp_settings_t s = settings();
    s.on_header_field = &ResponseParser::on_header_field;
    s.on_header_value = &ResponseParser::on_header_value;
    s.on_header_field_complete = &ResponseParser::on_field_complete;
    s.on_header_value_complete = &ResponseParser::on_value_complete;
    return s;
  }();
  return kSettings;
}

// The caps are checked before each append, so a capture never holds more than
// its cap, and a server that never ends a header or a body fails the response
// (and frees the worker to go back to its loop) once it has sent that much.
int ResponseParser::capture_bytes(std::string& into, const CaptureCap& cap, const char* at, std::size_t length) {
  if (length > cap.max - std::min(cap.max, into.size())) {
    error_reason_ = cap.reason.c_str();
    return -1;
  }
  into.append(at, length);
  return 0;
}

std::string_view find_header(std::string_view head, std::string_view name) {
  const auto trim = [](std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.remove_suffix(1);
    return v;
  };
  std::size_t at = head.find('\n');  // past the status line
  while (at != std::string_view::npos && at + 1 < head.size()) {
    const std::size_t end = std::min(head.find('\n', at + 1), head.size());
    const std::string_view line = head.substr(at + 1, end - at - 1);
    const std::size_t colon = line.find(':');
    if (colon == name.size() && std::equal(name.begin(), name.end(), line.begin(), [](char a, char b) {
          return a == (b >= 'A' && b <= 'Z' ? static_cast<char>(b - 'A' + 'a') : b);
        })) {
      return trim(line.substr(colon + 1));
    }
    at = end < head.size() ? end : std::string_view::npos;
  }
  return {};
}

std::string_view ResponseParser::server() const {
  if (!keep_server_) return {};
  if (from_known_) return known_->server;
  if (!server_) return {};
  std::string_view v = *server_;
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

void ResponseParser::match_server_name(const char* at, std::size_t length) {
  static constexpr std::string_view kName = "server";
  for (std::size_t i = 0; i < length && server_name_ <= kName.size(); ++i) {
    const char ch = at[i] >= 'A' && at[i] <= 'Z' ? static_cast<char>(at[i] - 'A' + 'a') : at[i];
    server_name_ = server_name_ < kName.size() && kName[server_name_] == ch ? static_cast<std::uint8_t>(server_name_ + 1)
                                                                            : static_cast<std::uint8_t>(kName.size() + 1);
  }
}

// Each callback serves the capture (a script's response()), the inspection
// (Location, Content-Encoding, body decoding) and the Server header, whichever the parser has.
int ResponseParser::on_header_field(llhttp_t* parser, const char* at, std::size_t length) {
  ResponseParser* self = self_of(parser);
  if (self->keep_server_) self->match_server_name(at, length);
  if (self->inspect_ != nullptr) self->inspect_->name_piece(at, length);
  if (self->capture_ == nullptr) return 0;
  return self->capture_bytes(self->capture_->fields, self->capture_->max_header_bytes, at, length);
}

int ResponseParser::on_header_value(llhttp_t* parser, const char* at, std::size_t length) {
  ResponseParser* self = self_of(parser);
  constexpr std::size_t kMaxServerBytes = 256;  // a longer Server header is cut there
  if (self->keep_server_ && self->server_name_ == 6) {
    if (!self->server_) self->server_ = std::make_unique<std::string>();  // kept until keep_server(false)
    std::string& server = *self->server_;
    server.append(at, std::min(length, kMaxServerBytes - std::min(kMaxServerBytes, server.size())));
  }
  if (self->inspect_ != nullptr) self->inspect_->value_piece(at, length);
  if (self->capture_ == nullptr) return 0;
  return self->capture_bytes(self->capture_->fields, self->capture_->max_header_bytes, at, length);
}

int ResponseParser::on_field_complete(llhttp_t* parser) {
  ResponseParser* self = self_of(parser);
  if (self->capture_ == nullptr) return 0;
  static constexpr char kSeparator = '\0';
  return self->capture_bytes(self->capture_->fields, self->capture_->max_header_bytes, &kSeparator, 1);
}

int ResponseParser::on_value_complete(llhttp_t* parser) {
  ResponseParser* self = self_of(parser);
  self->server_name_ = 0;
  if (self->inspect_ != nullptr) self->inspect_->field_done();
  if (self->capture_ == nullptr) return 0;
  ResponseCapture& capture = *self->capture_;
  if (++capture.header_count > capture.max_headers.max) {
    self->error_reason_ = capture.max_headers.reason.c_str();
    return -1;
  }
  return on_field_complete(parser);
}

int ResponseParser::on_body(llhttp_t* parser, const char* at, std::size_t length) {
  ResponseParser* self = self_of(parser);
  self->body_bytes_ += length;
  if (self->inspect_ != nullptr && !self->inspect_->body(at, length)) return self->end_undecodable(parser);
  if (self->capture_ == nullptr || !self->capture_->keep_body) return 0;
  return self->capture_bytes(self->capture_->body, self->capture_->max_body_bytes, at, length);
}

ResponseParser::ResponseParser(OnComplete on_complete, void* context, KnownHead* known, LlhttpPool* parsers)
    : parsers_(parsers), on_complete_(on_complete), context_(context), known_(known) {
  reset();
}

llhttp_t& ResponseParser::llhttp() {
  if (!llhttp_) {
    llhttp_ = parsers_ != nullptr ? parsers_->take() : std::make_unique<llhttp_t>();
    const bool reads_more = capture_ != nullptr || inspect_ != nullptr || keep_server_;
    llhttp_init(llhttp_.get(), HTTP_RESPONSE, reads_more ? &capturing_settings() : &settings());
    llhttp_->data = this;
  }
  return *llhttp_;
}

void ResponseParser::give_back() {
  // Between responses llhttp's state is its initial one: the next response
  // starts from llhttp_init whichever parser it gets.
  if (parsers_ != nullptr && llhttp_) {
    parsers_->give(std::move(llhttp_));
  } else {
    llhttp_.reset();
  }
}

void ResponseParser::reset() {
  give_back();
  outstanding_ = 0;
  head_bits_ = 0;
  in_message_ = false;
  in_head_ = false;
  head_bytes_ = 0;
  max_head_bytes_ = kMaxHeadBytes;
  if (capture_ != nullptr && capture_->max_header_bytes.max > kMaxHeadBytes - kHeadFramingBytes) {
    const std::size_t captured = capture_->max_header_bytes.max;
    max_head_bytes_ = captured > SIZE_MAX / 2 ? SIZE_MAX / 2 : captured + kHeadFramingBytes;
  }
  status_scan_ = StatusScan::kDone;
  closed_ = false;
  learn_ = false;  // the known head stays: it is the worker's, and still true
  known_body_left_ = 0;
  known_matches_ = 0;
  error_reason_ = "";
  if (server_) server_->clear();
  server_name_ = 0;
  body_bytes_ = 0;
  from_known_ = false;
}

bool ResponseParser::expect(bool is_head) {
  if (outstanding_ >= kMaxOutstanding) return false;
  if (is_head) head_bits_ |= std::uint64_t{1} << outstanding_;
  ++outstanding_;
  return true;
}

int ResponseParser::on_message_begin(llhttp_t* parser) {
  ResponseParser* self = self_of(parser);
  if (self->outstanding_ == 0) {
    self->error_reason_ = "response received with no request outstanding";
    return -1;
  }
  self->in_message_ = true;
  self->in_head_ = true;
  self->body_bytes_ = 0;
  self->from_known_ = false;
  if (self->server_) self->server_->clear();
  self->server_name_ = 0;
  if (self->on_begin_ != nullptr) self->on_begin_(self->context_);
  if (self->inspect_ != nullptr) self->inspect_->begin();
  if (self->capture_ != nullptr) {
    self->capture_->fields.clear();
    self->capture_->body.clear();
    self->capture_->header_count = 0;
  }
  return 0;
}

int ResponseParser::on_headers_complete(llhttp_t* parser) {
  ResponseParser* self = self_of(parser);
  self->in_head_ = false;
  const int status = llhttp_get_status_code(parser);
  if (status < 100 || status > 599) {
    self->reason_format_ = "status code %03lld is outside 100-599";
    self->reason_value_ = status;
    self->error_reason_ = self->reason_format_;
    return -1;
  }
  // After a 101 the server speaks another protocol; pacer asked for none.
  if (status == 101) {
    self->error_reason_ = "101 Switching Protocols: the server switched protocols, but pacer asked for no upgrade";
    return -1;
  }
  if (self->inspect_ != nullptr) self->inspect_->head_done();
  // 1xx (interim), 204 and 304 never carry a body, whatever their headers say.
  if ((status >= 100 && status < 200) || status == 204 || status == 304) return 1;
  // The response to HEAD has a Content-Length but no body.
  if ((self->head_bits_ & 1) != 0) return 1;
  return 0;
}

int ResponseParser::on_message_complete(llhttp_t* parser) {
  ResponseParser* self = self_of(parser);
  self->in_message_ = false;
  self->learn_ = false;
  const int status = llhttp_get_status_code(parser);
  const bool interim = status >= 100 && status < 200;  // keep waiting for the final one (101 failed earlier)
  const bool keep_alive = llhttp_should_keep_alive(parser) != 0;
  // After a response (interim ones too) that closes the connection, llhttp reads
  // nothing more; feed() neither, or counts and errors would depend on where the
  // reads split.
  if (!keep_alive) self->closed_ = true;
  if (!interim) {
    const bool head = (self->head_bits_ & 1) != 0;
    self->complete(status, keep_alive);
    // A keep-alive response framed by Content-Length may become the known head.
    const bool framed = (parser->flags & F_CONTENT_LENGTH) != 0 && (parser->flags & F_CHUNKED) == 0;
    // Not a response someone reads: a script's response() (every response's
    // headers), the wire inspection (a followed redirect's Location, a body to decode).
    const bool read = self->capture_ != nullptr || (self->inspect_ != nullptr && self->inspect_->reads(status));
    self->learn_ = keep_alive && framed && status >= 200 && !head && self->known_ != nullptr && !read;
  }
  // llhttp stops after every response, so that feed() knows where each one ended
  // (llhttp_get_error_pos) and the next starts (the known head, the status and
  // head-size checks).
  return HPE_PAUSED;
}

// --compressed: the body decoded past the decoded-size cap. The response ends here, complete for the session, whose
// end_body() makes it a decode error; the connection ends with it, since the
// rest of the body is never read (an endless compressed stream has no end to wait for).
int ResponseParser::end_undecodable(llhttp_t* parser) {
  in_message_ = false;
  learn_ = false;
  closed_ = true;
  complete(llhttp_get_status_code(parser), false);
  return HPE_PAUSED;
}

bool ResponseParser::fail_head_too_long() {
  if (max_head_bytes_ == kMaxHeadBytes) return fail("response head longer than 256 KiB (the header-size cap)");
  reason_format_ = "response head longer than %lld KiB (the header-size cap: --max-capture-header-bytes + 64 KiB)";
  reason_value_ = static_cast<long long>(max_head_bytes_ / 1024);
  return fail(reason_format_);
}

bool ResponseParser::fail(const char* reason) {
  error_reason_ = reason;
  return false;
}

bool ResponseParser::scan_status_code(const char* p, const char* end) {
  // "HTTP/1.1 " (llhttp checks the version; a line with no space soon is its error),
  // then the code up to the space or line end that follows it.
  constexpr int kMaxVersionBytes = 16;
  for (; p < end && status_scan_ != StatusScan::kDone; ++p) {
    const char ch = *p;
    if (status_scan_ == StatusScan::kVersion) {
      if (ch == ' ') {
        status_scan_ = StatusScan::kCode;
      } else if (++status_line_bytes_ > kMaxVersionBytes) {
        status_scan_ = StatusScan::kDone;
      }
      continue;
    }
    if (ch >= '0' && ch <= '9' && ++status_digits_ <= 3) continue;
    status_scan_ = StatusScan::kDone;
    if (status_digits_ != 3) return fail("status code is not three digits");
  }
  return true;
}

void ResponseParser::complete(int status, bool keep_alive) {
  --outstanding_;
  head_bits_ >>= 1;
  on_complete_(context_, status, keep_alive);
}

bool ResponseParser::starts_with_known_head(const char* p, const char* end) const {
  return known_ != nullptr && known_->length != 0 && outstanding_ > 0 && (head_bits_ & 1) == 0 &&
         static_cast<std::size_t>(end - p) >= known_->length &&
         std::memcmp(p, known_->bytes.data(), known_->length) == 0;
}

void ResponseParser::learn_head(const char* start, const char* stop) {
  // The head is where llhttp ended it: the message less the body it counted. Only
  // a head ending in CRLF CRLF is kept; llhttp also ends one at a lone CR, which a
  // search for the blank line would place elsewhere (and so misframe the body).
  const std::string_view message(start, static_cast<std::size_t>(stop - start));
  if (body_bytes_ > message.size()) return;
  const std::size_t length = message.size() - static_cast<std::size_t>(body_bytes_);
  if (length < 4 || length > KnownHead::kMaxBytes || message.substr(length - 4, 4) != "\r\n\r\n") return;  // keep the one we have
  known_->length = length;
  std::memcpy(known_->bytes.data(), start, known_->length);
  known_->body = body_bytes_;
  known_->status = llhttp_get_status_code(llhttp_.get());
  known_->server = find_header(std::string_view(known_->bytes.data(), known_->length), "server");
}

std::size_t ResponseParser::skip_known_body(std::size_t available) {
  const std::size_t n = std::min(available, known_body_left_);
  known_body_left_ -= n;
  if (known_body_left_ == 0) {
    in_message_ = false;
    ++known_matches_;
    complete(known_status_, true);
  }
  return n;
}

bool ResponseParser::feed(const char* data, std::size_t len) {
  error_reason_ = "";
  const char* p = data;
  const char* const end = data + len;
  // After a response that closes the connection (an interim one too) llhttp
  // ignores every byte; so does everything here (the known head, the status and
  // head-size checks), whether those bytes came in the same read or a later one.
  while (p < end && !closed_) {
    if (known_body_left_ > 0) {  // a known response's body, over several reads
      p += skip_known_body(static_cast<std::size_t>(end - p));
      continue;
    }
    // Line ends between responses, which llhttp skips: a response (the head
    // learnt or matched) starts at its status line, wherever reads split.
    if (!in_message_ && (*p == '\r' || *p == '\n')) {
      ++p;
      continue;
    }
    if (!in_message_ && starts_with_known_head(p, end)) {
      // The status is taken now: another connection may learn another head meanwhile.
      p += known_->length;
      in_message_ = true;
      if (on_begin_ != nullptr) on_begin_(context_);
      known_body_left_ = known_->body;
      known_status_ = static_cast<std::uint16_t>(known_->status);
      body_bytes_ = known_->body;
      from_known_ = true;
      p += skip_known_body(static_cast<std::size_t>(end - p));
      continue;
    }
    // llhttp: to the end of the bytes or of the next response (see on_message_complete).
    const char* const start = in_message_ ? nullptr : p;  // a response starting here
    if (start != nullptr) {
      head_bytes_ = 0;
      status_scan_ = StatusScan::kVersion;
      status_digits_ = 0;
      status_line_bytes_ = 0;
    }
    if (status_scan_ != StatusScan::kDone && !scan_status_code(p, end)) return false;
    // A head is fed at most one byte past the cap, so a head longer than the cap
    // fails there whatever the reads' sizes.
    std::size_t span = static_cast<std::size_t>(end - p);
    if (start != nullptr || in_head_) span = std::min(span, max_head_bytes_ + 1 - head_bytes_);
    const llhttp_errno_t err = llhttp_execute(&llhttp(), p, span);
    if (err == HPE_OK) {
      if (in_head_ && (head_bytes_ += span) > max_head_bytes_) return fail_head_too_long();
      p += span;
      continue;
    }
    if (err == HPE_PAUSED) {
      const char* const stop = llhttp_get_error_pos(llhttp_.get());
      if (learn_ && start != nullptr) learn_head(start, stop);  // only a response seen whole
      give_back();  // the response ended (on_message_complete, end_undecodable)
      p = stop;
      continue;
    }
    if (*error_reason_ == '\0') {
      const char* reason = llhttp_get_error_reason(llhttp_.get());
      error_reason_ = reason != nullptr ? reason : llhttp_errno_name(err);
    }
    return false;
  }
  return true;
}

bool ResponseParser::finish() {
  if (!in_message_) return true;
  // llhttp completes a body delimited by the close here (HPE_PAUSED: the pause of
  // on_message_complete); a known response's body never is. Anything else was cut short.
  if (known_body_left_ == 0 && llhttp_finish(&llhttp()) == HPE_PAUSED) give_back();
  if (in_message_) {
    error_reason_ = "connection closed in the middle of a response";
    return false;
  }
  return true;
}

const char* ResponseParser::error_reason() const {
  if (error_reason_ != reason_format_) return error_reason_;
  // A reason naming a value is formatted here, in a buffer of the thread's, rather
  // than kept in every connection's parser (see reason_format_).
  thread_local std::array<char, 128> formatted{};
  std::snprintf(formatted.data(), formatted.size(), reason_format_, reason_value_);
  return formatted.data();
}

}  // namespace pacer::proto
