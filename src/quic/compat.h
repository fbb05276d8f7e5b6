// The one place that knows which generation of the QUIC libraries is installed:
// Debian 12 ships ngtcp2 0.12 and nghttp3 0.8, whose names differ from their 1.x
// successors (ngtcp2_connection_close_error -> ngtcp2_ccerr, the getter of the
// peer's close error, nghttp3_nv's non-const name/value pointers, ...). Every
// call whose name or shape changed between the generations goes through here,
// so a move to 1.x edits this file alone. Header-only, no state.
#pragma once

#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace pacer::quic::compat {

// ngtcp2 0.12: ngtcp2_connection_close_error (1.x: ngtcp2_ccerr).
using CloseError = ngtcp2_connection_close_error;

inline void close_error_default(CloseError& e) { ngtcp2_connection_close_error_default(&e); }

// The CONNECTION_CLOSE the peer sent (or the idle close), once the connection ended.
inline void peer_close_error(ngtcp2_conn* conn, CloseError& e) { ngtcp2_conn_get_connection_close_error(conn, &e); }

inline void set_application_error(CloseError& e, std::uint64_t code) {
  ngtcp2_connection_close_error_set_application_error(&e, code, nullptr, 0);
}

inline void set_liberr(CloseError& e, int liberr) {
  ngtcp2_connection_close_error_set_transport_error_liberr(&e, liberr, nullptr, 0);
}

inline bool is_application_error(const CloseError& e) {
  return e.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION;
}

inline ngtcp2_ssize write_connection_close(ngtcp2_conn* conn, std::uint8_t* dest, std::size_t destlen,
                                           const CloseError& e, ngtcp2_tstamp ts) {
  return ngtcp2_conn_write_connection_close(conn, nullptr, nullptr, dest, destlen, &e, ts);
}

// nghttp3 0.8: nghttp3_nv holds non-const pointers (1.x: const). The header
// strings are never written through them (NO_COPY flags: nghttp3 only reads).
inline nghttp3_nv header(const std::uint8_t* name, std::size_t namelen, const std::uint8_t* value,
                         std::size_t valuelen) {
  nghttp3_nv nv{};
  nv.name = const_cast<std::uint8_t*>(name);
  nv.namelen = namelen;
  nv.value = const_cast<std::uint8_t*>(value);
  nv.valuelen = valuelen;
  nv.flags = NGHTTP3_NV_FLAG_NO_COPY_NAME | NGHTTP3_NV_FLAG_NO_COPY_VALUE;
  return nv;
}

}  // namespace pacer::quic::compat

namespace pacer::quic::compat {

// nghttp3_vec and ngtcp2_vec are the same {base, len} pair in both generations;
// the write loop hands nghttp3's straight to ngtcp2.
static_assert(sizeof(nghttp3_vec) == sizeof(ngtcp2_vec) && offsetof(nghttp3_vec, len) == offsetof(ngtcp2_vec, len));
inline const ngtcp2_vec* as_ngtcp2(const nghttp3_vec* v) { return reinterpret_cast<const ngtcp2_vec*>(v); }

// ngtcp2 0.12: shutdown_stream(conn, id, code) (1.x adds a flags argument).
inline int shutdown_stream(ngtcp2_conn* conn, std::int64_t id, std::uint64_t code) {
  return ngtcp2_conn_shutdown_stream(conn, id, code);
}
inline int shutdown_stream_read(ngtcp2_conn* conn, std::int64_t id, std::uint64_t code) {
  return ngtcp2_conn_shutdown_stream_read(conn, id, code);
}
inline int shutdown_stream_write(ngtcp2_conn* conn, std::int64_t id, std::uint64_t code) {
  return ngtcp2_conn_shutdown_stream_write(conn, id, code);
}

}  // namespace pacer::quic::compat
