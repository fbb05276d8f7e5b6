// TlsStream over the TLS module's Link. See tls_stream.h.
#include "net/tls_stream.h"

#include <cstdio>

namespace pacer::net {

bool TlsStream::start_client(const TlsContext& context, int fd, TlsSessionCache* cache) {
  if (!link_) link_ = context.impl().link();
  tls::Sessions* sessions = cache != nullptr && context.resumes_sessions() ? cache->store_for(context) : nullptr;
  return link_->start_client(context.impl(), fd, sessions);
}

bool TlsStream::start_server(const TlsContext& context, int fd) {
  if (!link_) link_ = context.impl().link();
  return link_->start_server(context.impl(), fd);
}

void TlsStream::describe_failure(std::span<char> out) const {
  if (link_) {
    link_->describe_failure(out);
  } else if (!out.empty()) {
    std::snprintf(out.data(), out.size(), "TLS error");
  }
}

}  // namespace pacer::net
