// See http3_request.h.
#include "quic/http3_request.h"

#include "quic/compat.h"

namespace pacer::quic {

Http3Request::Http3Request(const proto::Http2Request& request) : request_(&request) {
  for (std::size_t i = 0; i < request.header_count(); ++i) {
    const nghttp2_nv& h = request.headers()[i];
    nv_.push_back(compat::header(h.name, h.namelen, h.value, h.valuelen));
  }
}

}  // namespace pacer::quic
