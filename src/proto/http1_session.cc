// Http1Session: request bytes out, FIFO response matching in. See http1_session.h.
#include "proto/http1_session.h"

#include <algorithm>
#include <cstring>

namespace pacer::proto {

Http1Session::Http1Session(std::string_view request, std::string_view repeated, std::uint32_t depth,
                           bool is_head, KnownHead* known, LlhttpPool* parsers)
    : single_(std::make_unique<Http1Bytes>(Http1Bytes{request, repeated, is_head})),
      requests_(single_.get(), 1),
      parser_(&Http1Session::on_complete, this, known, parsers),
      depth_(std::clamp<std::uint32_t>(depth, 1, kMaxDepth)) {
  parser_.set_on_begin(&Http1Session::on_begin);
  allocate_ring();
}

Http1Session::Http1Session(std::span<const Http1Bytes> requests, std::uint32_t depth, KnownHead* known,
                           LlhttpPool* parsers)
    : requests_(requests),
      parser_(&Http1Session::on_complete, this, known, parsers),
      depth_(std::clamp<std::uint32_t>(depth, 1, kMaxDepth)) {
  parser_.set_on_begin(&Http1Session::on_begin);
  allocate_ring();
  if (requests.size() < 2 || depth_ < 2) return;
  const std::size_t bytes = std::min(kGatherBytes, largest_request() * depth_);
  gather_ = std::make_unique<char[]>(bytes);
  gather_bytes_ = static_cast<std::uint32_t>(bytes);
}

std::size_t Http1Session::largest_request() const {
  std::size_t largest = 0;
  for (const Http1Bytes& r : requests_) largest = std::max(largest, r.bytes.size());
  return largest;
}

void Http1Session::enable_wire(const Target& target, int follow_redirects, bool decode) {
  if (follow_redirects > 0) {
    redirector_ = std::make_unique<Redirector>(target, follow_redirects, largest_request());
  }
  inspect_ = std::make_unique<ResponseInspect>(follow_redirects > 0, decode);
  parser_.set_inspect(inspect_.get());
  parser_.reset();
}

void Http1Session::allocate_ring() {
  if (depth_ > 1) {
    pipeline_entries_ = std::make_unique<Outstanding[]>(depth_);
    ring_ = pipeline_entries_.get();
  }
}

void Http1Session::reset() {
  parser_.reset();
  chain_ = false;
  head_ = outstanding_ = written_ = queued_ = 0;
  offset_ = 0;
  custom_ = {};
  batch_left_ = 0;
  closing_ = false;
}

void Http1Session::submit_bytes(std::uint32_t token, std::string_view bytes, std::uint32_t responses,
                                std::uint64_t head_bits) {
  ring_[ring_at(outstanding_)].token = token;
  ++outstanding_;
  ++queued_;
  custom_ = bytes;
  batch_left_ = responses;
  chain_ = redirector_ != nullptr && responses == 1;  // a script's batch is not followed
  if (chain_) redirector_->start(bytes);
  for (std::uint32_t i = 0; i < responses; ++i) parser_.expect(((head_bits >> i) & 1) != 0);
}

void Http1Session::submit(std::uint32_t token, std::uint32_t target) {
  ring_[ring_at(outstanding_)] = {token, target};
  ++outstanding_;
  ++queued_;
  parser_.expect(requests_[target].is_head);
  chain_ = redirector_ != nullptr;
  if (chain_) redirector_->start(requests_[target].bytes);
}

std::span<const char> Http1Session::pending_output() {
  if (queued_ == 0) return {};
  if (!custom_.empty()) return {custom_.data() + offset_, custom_.size() - offset_};
  const std::uint32_t first = ring_[queued_at(0)].target;
  std::uint32_t same = 1;
  while (same < queued_ && ring_[queued_at(same)].target == first) ++same;
  const Http1Bytes& request = requests_[first];
  if (same == queued_ || same > 1 || gather_bytes_ == 0) {
    // `repeated` holds depth_ >= `same` copies back to back, so the run of
    // queued requests of one target is one contiguous view into it.
    const std::size_t bytes = std::min(request.repeated.size(), same * request.bytes.size()) - offset_;
    return {request.repeated.data() + offset_, bytes};
  }
  return gather_queued();
}

std::span<const char> Http1Session::gather_queued() {
  // A batch mixing targets: as many whole queued requests as fit after the
  // rest of the first, copied into the scratch buffer.
  const std::string_view first = requests_[ring_[queued_at(0)].target].bytes;
  std::size_t used = first.size() - offset_;
  if (used > gather_bytes_) return {first.data() + offset_, used};
  std::memcpy(gather_.get(), first.data() + offset_, used);
  for (std::uint32_t i = 1; i < queued_; ++i) {
    const std::string_view next = requests_[ring_[queued_at(i)].target].bytes;
    if (used + next.size() > gather_bytes_) break;
    std::memcpy(gather_.get() + used, next.data(), next.size());
    used += next.size();
  }
  return {gather_.get(), used};
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
  while (queued_ > 0) {
    const std::size_t size = requests_[ring_[queued_at(0)].target].bytes.size();
    if (offset_ < size) break;
    offset_ -= size;
    --queued_;
    ++written_;
  }
}

void Http1Session::on_complete(void* context, int status, bool keep_alive) {
  auto& self = *static_cast<Http1Session*>(context);
  if (self.batch_left_ > 1) {  // a script's pipelined batch: not its last response yet
    --self.batch_left_;
    if (!keep_alive) self.closing_ = true;
    self.events_->on_batch_response(self.ring_[self.head_].token, status);
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
  const std::uint32_t token = self.ring_[self.head_].token;
  self.head_ = self.ring_at(1);
  --self.outstanding_;
  if (self.inspect_ == nullptr) {
    self.events_->on_response(token, status);
    return;
  }
  self.finish_response(token, status, keep_alive);
}

void Http1Session::finish_response(std::uint32_t token, int status, bool keep_alive) {
  if (chain_ && is_followed_redirect(status)) {
    // Its follow-up goes on this connection, alone (depth 1): a server closing it fails the chain.
    if (!keep_alive || closing_) {
      fail_request(token, RequestFailure::kRedirect, "redirect: the server closed the connection with the redirect");
      return;
    }
    if (redirector_->redirect(status, inspect_->location(), inspect_->location_too_long()) ==
        Redirector::Step::kFail) {
      fail_request(token, RequestFailure::kRedirect, nullptr);  // the Redirector says why
      return;
    }
    events_->on_redirect(token);
    ring_[ring_at(outstanding_)].token = token;
    ++outstanding_;
    ++queued_;
    custom_ = redirector_->follow_up();
    offset_ = 0;
    parser_.expect(redirector_->follow_up_is_head());
    return;
  }
  if (!inspect_->end_body()) {
    fail_request(token, RequestFailure::kDecode, inspect_->decode_reason());
    return;
  }
  if (inspect_->decodes()) events_->on_decoded(token, inspect_->decoded_bytes());
  events_->on_response(token, status);
}

void Http1Session::fail_request(std::uint32_t token, RequestFailure why, const char* detail) {
  failure_detail_ = detail;
  events_->on_request_failed(token, why);
}

const char* Http1Session::failure_detail() const {
  return failure_detail_ != nullptr ? failure_detail_ : redirector_->reason();
}

void Http1Session::on_begin(void* context) {
  auto& self = *static_cast<Http1Session*>(context);
  if (self.outstanding_ > 0) self.events_->on_first_byte(self.ring_[self.head_].token);
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
