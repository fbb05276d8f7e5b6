#include "proto/alpn.h"

namespace pacer::proto {

std::string_view alpn_offer(bool http2) {
  using namespace std::string_view_literals;
  return http2 ? "\x02h2"sv : "\x08http/1.1"sv;
}

std::string_view alpn_mismatch(bool http2, std::string_view negotiated) {
  if (!http2) return {};  // HTTP/1.1 works whether or not the server speaks ALPN
  if (negotiated == "h2") return {};
  return "--http2: the server did not negotiate h2 via ALPN";
}

}  // namespace pacer::proto
