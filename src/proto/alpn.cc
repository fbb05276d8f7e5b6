#include "proto/alpn.h"

namespace pacer::proto {

std::vector<std::string> alpn_protocols(bool http2) { return {http2 ? "h2" : "http/1.1"}; }

std::string_view alpn_mismatch(bool http2, std::string_view negotiated) {
  if (!http2) return {};  // HTTP/1.1 works whether or not the server speaks ALPN
  if (negotiated == "h2") return {};
  return "--http2: the server did not negotiate h2 via ALPN";
}

}  // namespace pacer::proto
