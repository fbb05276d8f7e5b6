// llhttp glue for ResponseParser. The callbacks are static functions reached
// through llhttp's `data` pointer: no allocation, no std::function.
#include "proto/http1_parser.h"

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
    s.on_header_value_complete = &ResponseParser::on_field_complete;
    s.on_body = &ResponseParser::on_body;
    return s;
  }();
  return kSettings;
}

int ResponseParser::on_header_field(llhttp_t* parser, const char* at, std::size_t length) {
  self_of(parser)->capture_->fields.append(at, length);
  return 0;
}

int ResponseParser::on_header_value(llhttp_t* parser, const char* at, std::size_t length) {
  self_of(parser)->capture_->fields.append(at, length);
  return 0;
}

int ResponseParser::on_field_complete(llhttp_t* parser) {
  self_of(parser)->capture_->fields.push_back('\0');
  return 0;
}

int ResponseParser::on_body(llhttp_t* parser, const char* at, std::size_t length) {
  self_of(parser)->capture_->body.append(at, length);
  return 0;
}

ResponseParser::ResponseParser(OnComplete on_complete, void* context)
    : on_complete_(on_complete), context_(context) {
  reset();
}

void ResponseParser::reset() {
  llhttp_init(&parser_, HTTP_RESPONSE, capture_ != nullptr ? &capturing_settings() : &settings());
  parser_.data = this;
  outstanding_ = 0;
  head_bits_ = 0;
  in_message_ = false;
  error_reason_ = "";
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
  if (self->capture_ != nullptr) {
    self->capture_->fields.clear();
    self->capture_->body.clear();
  }
  return 0;
}

int ResponseParser::on_headers_complete(llhttp_t* parser) {
  ResponseParser* self = self_of(parser);
  const int status = llhttp_get_status_code(parser);
  // 1xx (interim), 204 and 304 never carry a body, whatever their headers say.
  if ((status >= 100 && status < 200) || status == 204 || status == 304) return 1;
  // The response to HEAD has a Content-Length but no body.
  if ((self->head_bits_ & 1) != 0) return 1;
  return 0;
}

int ResponseParser::on_message_complete(llhttp_t* parser) {
  ResponseParser* self = self_of(parser);
  self->in_message_ = false;
  const int status = llhttp_get_status_code(parser);
  if (status >= 100 && status < 200 && status != 101) return 0;  // interim: keep waiting
  --self->outstanding_;
  self->head_bits_ >>= 1;
  self->on_complete_(self->context_, status, llhttp_should_keep_alive(parser) != 0);
  return 0;
}

bool ResponseParser::feed(const char* data, std::size_t len) {
  error_reason_ = "";
  const llhttp_errno_t err = llhttp_execute(&parser_, data, len);
  if (err == HPE_OK) return true;
  if (*error_reason_ == '\0') {
    const char* reason = llhttp_get_error_reason(&parser_);
    error_reason_ = reason != nullptr ? reason : llhttp_errno_name(err);
  }
  return false;
}

bool ResponseParser::finish() {
  if (!in_message_) return true;
  const llhttp_errno_t err = llhttp_finish(&parser_);
  if (err != HPE_OK) {
    error_reason_ = "connection closed in the middle of a response";
    return false;
  }
  // llhttp completes a close-delimited body here; anything else is truncated.
  if (in_message_) {
    error_reason_ = "connection closed in the middle of a response";
    return false;
  }
  return true;
}

const char* ResponseParser::error_reason() const { return error_reason_; }

}  // namespace pacer::proto
