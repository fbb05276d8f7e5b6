// The HTTP/2 form of the run's request: a header list (pseudo-headers first,
// names lower-cased, connection-specific headers dropped) and a body, built once
// before the clock starts and shared read-only by every Http2Session.
#pragma once

#include <nghttp2/nghttp2.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"

namespace pacer::proto {

class Http2Request {
 public:
  // :method, :scheme, :authority (a user Host header replaces it), :path, then
  // the user's -H headers in order, and content-length when there is a body.
  // Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding and Upgrade are
  // left out: HTTP/2 forbids them.
  explicit Http2Request(const Config& config);
  // --targets: one target's request on the run's origin (-H headers first, the
  // target's after them; a target header replaces a -H header of the same name).
  Http2Request(const Config& config, const RequestTarget& target);
  Http2Request(const Http2Request&) = delete;
  Http2Request& operator=(const Http2Request&) = delete;
  // Moving keeps the header list valid: the strings' buffers move with their
  // vectors' storage (nothing in nv_ points into body_).
  Http2Request(Http2Request&&) = default;
  Http2Request& operator=(Http2Request&&) = default;

  // Flagged NO_COPY: nghttp2 keeps pointers into this object, which outlives every session.
  const nghttp2_nv* headers() const { return nv_.data(); }
  std::size_t header_count() const { return nv_.size(); }
  const std::string& body() const { return body_; }
  bool has_body() const { return has_body_; }
  // Where :method and :path are in headers(), and their values.
  static constexpr std::size_t kMethodIndex = 0;
  static constexpr std::size_t kPathIndex = 3;
  std::string_view method() const { return values_[kMethodIndex]; }
  std::string_view path() const { return values_[kPathIndex]; }

 private:
  std::vector<std::string> names_;
  std::vector<std::string> values_;
  std::vector<nghttp2_nv> nv_;
  std::string body_;
  bool has_body_ = false;
};

}  // namespace pacer::proto
