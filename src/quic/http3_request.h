// The HTTP/3 form of a request, built before the clock starts.
#pragma once

#include <nghttp3/nghttp3.h>

#include <cstddef>
#include <string>
#include <vector>

#include "proto/http2_request.h"

namespace pacer::quic {

// The HTTP/3 form of one request: HTTP/2's header list (the same rules: pseudo-
// headers first, names lower-cased, connection-specific headers dropped) as
// nghttp3 takes it, pointing into the Http2Request, which outlives it. Built once
// per request (per target with --targets) before the clock starts.
class Http3Request {
 public:
  explicit Http3Request(const proto::Http2Request& request);
  const nghttp3_nv* headers() const { return nv_.data(); }
  std::size_t header_count() const { return nv_.size(); }
  const std::string& body() const { return request_->body(); }
  bool has_body() const { return request_->has_body(); }

 private:
  const proto::Http2Request* request_;
  std::vector<nghttp3_nv> nv_;
};

}  // namespace pacer::quic
