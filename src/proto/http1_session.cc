// Http1Session: request bytes out, FIFO response matching in. See http1_session.h.
#include "proto/http1_session.h"

#include <algorithm>

namespace pacer::proto {

Http1Session::Http1Session(std::string_view request, std::string_view repeated, std::uint32_t depth,
                           bool is_head, KnownHead* known)
    : request_(request),
      repeated_(repeated),
      depth_(std::clamp<std::uint32_t>(depth, 1, kMaxDepth)),
      is_head_(is_head),
      parser_(&Http1Session::on_complete, this, known) {}

void Http1Session::reset() {
  parser_.reset();
  head_ = outstanding_ = written_ = queued_ = 0;
  offset_ = 0;
  custom_ = {};
  batch_left_ = 0;
  closing_ = false;
}

void Http1Session::submit_bytes(std::uint32_t token, std::string_view bytes, std::uint32_t responses,
                                std::uint64_t head_bits) {
  tokens_[(head_ + outstanding_) % kMaxDepth] = token;
  ++outstanding_;
  ++queued_;
  custom_ = bytes;
  batch_left_ = responses;
  for (std::uint32_t i = 0; i < responses; ++i) parser_.expect(((head_bits >> i) & 1) != 0);
}

void Http1Session::submit(std::uint32_t token) {
  tokens_[(head_ + outstanding_) % kMaxDepth] = token;
  ++outstanding_;
  ++queued_;
  parser_.expect(is_head_);
}

std::span<const char> Http1Session::pending_output() {
  if (queued_ == 0) return {};
  if (!custom_.empty()) return {custom_.data() + offset_, custom_.size() - offset_};
  // `repeated_` holds depth_ >= queued_ copies back to back, so the queued bytes
  // are one contiguous view into it.
  const std::size_t bytes = std::min(repeated_.size(), queued_ * request_.size()) - offset_;
  return {repeated_.data() + offset_, bytes};
}

void Http1Session::consume(std::size_t bytes) {
  offset_ += bytes;
  if (!custom_.empty()) {
    if (offset_ < custom_.size()) return;
    offset_ = 0;
    custom_ = {};
    --queued_;
    ++written_;
    return;
  }
  while (queued_ > 0 && offset_ >= request_.size()) {
    offset_ -= request_.size();
    --queued_;
    ++written_;
  }
}

void Http1Session::on_complete(void* context, int status, bool keep_alive) {
  auto& self = *static_cast<Http1Session*>(context);
  if (self.batch_left_ > 1) {  // a script's pipelined batch: not its last response yet
    --self.batch_left_;
    if (!keep_alive) self.closing_ = true;
    self.events_->on_batch_response(self.tokens_[self.head_], status);
    return;
  }
  self.batch_left_ = 0;
  // A response that arrives before its request was fully written (the server
  // answered early, say a 413) leaves the connection in an unknown state.
  if (self.written_ == 0) {
    self.closing_ = true;
    --self.queued_;
    self.offset_ = 0;
  } else {
    --self.written_;
  }
  if (!keep_alive) self.closing_ = true;
  const std::uint32_t token = self.tokens_[self.head_];
  self.head_ = (self.head_ + 1) % kMaxDepth;
  --self.outstanding_;
  self.events_->on_response(token, status);
}

bool Http1Session::receive(const char* data, std::size_t len, SessionEvents& events) {
  events_ = &events;
  const bool ok = parser_.feed(data, len);
  events_ = nullptr;
  return ok;
}

bool Http1Session::finish(SessionEvents& events) {
  events_ = &events;
  const bool ok = parser_.finish();
  events_ = nullptr;
  closing_ = true;
  return ok;
}

}  // namespace pacer::proto
