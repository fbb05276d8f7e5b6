// OpenSslSessions: the newest resumable session first. See openssl_sessions.h.
#include "tls/openssl_sessions.h"

namespace pacer::tls {

void OpenSslSessions::remove_at(std::size_t index) {
  for (std::size_t i = index; i + 1 < count_; ++i) sessions_[i] = std::move(sessions_[i + 1]);
  sessions_[--count_].reset();
}

void OpenSslSessions::store(SSL_SESSION* session) {
  if (count_ == kCapacity) remove_at(0);  // the oldest
  sessions_[count_++].reset(session);
}

bool OpenSslSessions::offer_to(SSL* ssl) {
  while (count_ > 0) {
    SSL_SESSION* newest = sessions_[count_ - 1].get();
    if (SSL_SESSION_is_resumable(newest) != 1) {
      remove_at(count_ - 1);
      continue;
    }
    if (SSL_set_session(ssl, newest) != 1) return false;  // ssl holds its own reference now
    if (SSL_SESSION_get_protocol_version(newest) == TLS1_3_VERSION) remove_at(count_ - 1);  // single use
    return true;
  }
  return false;
}

}  // namespace pacer::tls
