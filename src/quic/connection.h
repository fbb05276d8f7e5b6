// One QUIC client connection as a transport with timers: ngtcp2 state and its
// GnuTLS session, driven purely in memory (datagrams in through read_packet,
// packets out through write_packets into a PacketBatch; the caller owns the
// socket). The application above (HTTP/3, proto::Http3Session) sees streams
// through StreamHandler and asks for stream operations through this class, so
// ngtcp2's names stay inside src/quic/ (see compat.h).
//
// Flow control: stream data handed to the application is credited back to
// ngtcp2 only when the application says it consumed it (consumed()).
// The write loop handles ngtcp2's "write more" (the packet has room for more
// stream data), "stream data blocked" (flow control) and "stream shut" results.
//
// Thread: the owning worker's.
#pragma once

#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <gnutls/gnutls.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/clock.h"
#include "net/address.h"
#include "net/udp_io.h"
#include "quic/module.h"
#include "quic/tls_client.h"

namespace pacer::quic {

// Implemented by the application protocol (HTTP/3). Callbacks run inside
// read_packet / write_packets / handle_expiry. A negative return fails the connection.
class StreamHandler {
 public:
  virtual int on_stream_data(std::int64_t stream_id, const std::uint8_t* data, std::size_t length, bool fin) = 0;
  virtual int on_acked(std::int64_t stream_id, std::uint64_t bytes) = 0;
  virtual int on_stream_close(std::int64_t stream_id, std::uint64_t app_error_code) = 0;
  // The peer reset its side of the stream, or asked us to stop sending on it.
  virtual int on_stream_reset(std::int64_t stream_id, std::uint64_t app_error_code) = 0;
  virtual int on_stop_sending(std::int64_t stream_id, std::uint64_t app_error_code) = 0;
  virtual int on_stream_unblocked(std::int64_t stream_id) = 0;
  // The write loop's source: the next stream's data (vectors filled, count
  // returned), or 0 with *stream_id = -1 when there is none.
  virtual long next_stream_data(std::int64_t* stream_id, int* fin, ngtcp2_vec* vec, std::size_t count) = 0;
  virtual int on_written(std::int64_t stream_id, std::size_t bytes) = 0;
  virtual void on_stream_blocked(std::int64_t stream_id) = 0;
  virtual void on_stream_shut(std::int64_t stream_id) = 0;

 protected:
  ~StreamHandler() = default;
};

// The session's setup (its tls a TlsClient, its tickets a TicketCache: the
// module made both) and where ngtcp2's memory comes from.
struct ConnectionSetup : SessionSetup {
  const ngtcp2_mem* mem = nullptr;  // null: ngtcp2's malloc
};

class Connection {
 public:
  Connection();
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // A new client connection: the Initial packet is then waiting for write_packets.
  // False (with reason()) when ngtcp2 or GnuTLS cannot be set up.
  bool start(const ConnectionSetup& setup, StreamHandler* handler, TimeNs now);
  void reset();  // frees the connection's state (no packet sent)
  bool active() const { return conn_ != nullptr; }
  bool handshake_completed() const;
  bool resumed() const;

  // One received datagram. False once the connection has ended (ending(), reason()).
  bool read_packet(const std::uint8_t* data, std::size_t length, TimeNs now);
  // Whether the last read_packet's datagram held a packet that decrypted (ngtcp2
  // drops the others without telling: another connection ID, garbage, old keys).
  bool last_datagram_accepted() const { return last_accepted_; }
  // Appends packets to `out` until it is full or nothing is left to send now.
  bool write_packets(net::PacketBatch& out, TimeNs now);
  // When handle_expiry is due (loss recovery, ACK delay, idle timeout); kNever: no timer.
  TimeNs expiry() const;
  bool handle_expiry(TimeNs now);
  // A CONNECTION_CLOSE (HTTP/3 NO_ERROR, or the local error that ended it) to send
  // before the socket closes; nothing if the peer already closed or never answered.
  void write_close(net::PacketBatch& out, TimeNs now);

  // Streams (for the application).
  bool open_bidi_stream(std::int64_t& stream_id, void* user_data);
  bool open_uni_stream(std::int64_t& stream_id);
  void shutdown_stream(std::int64_t stream_id, std::uint64_t app_error_code);
  void shutdown_stream_write(std::int64_t stream_id, std::uint64_t app_error_code);
  void shutdown_stream_read(std::int64_t stream_id, std::uint64_t app_error_code);
  void consumed(std::int64_t stream_id, std::size_t bytes);  // credits flow control
  std::uint64_t bidi_streams_left() const;
  // The application failed (an HTTP/3 error): ends the connection with that code.
  void fail_application(std::uint64_t app_error_code, const char* why);

  Ending ending() const { return ending_; }
  // kPeerClosed with NO_ERROR (transport 0x0 or H3_NO_ERROR): the server closed an
  // idle connection on purpose, like a TCP close of an idle keep-alive connection.
  bool closed_gracefully() const { return graceful_; }
  const char* reason() const { return reason_.data(); }

 private:
  static ngtcp2_conn* conn_of(ngtcp2_crypto_conn_ref* ref);
  static int on_ticket(gnutls_session_t session, unsigned type, unsigned when, unsigned incoming,
                       const gnutls_datum_t* message);
  static ngtcp2_callbacks callbacks();
  // Records why ngtcp2 returned `liberr`; returns false.
  bool fail(int liberr);
  void describe_peer_close();

  ngtcp2_conn* conn_ = nullptr;
  std::uint64_t packets_decrypted_ = 0;  // counted by the decrypt callback during read_packet (connection.cc)
  bool last_accepted_ = false;
  gnutls_session_t session_ = nullptr;
  ngtcp2_crypto_conn_ref ref_{};
  StreamHandler* handler_ = nullptr;
  TicketCache* tickets_ = nullptr;
  net::Address local_;
  net::Address remote_;
  Ending ending_ = Ending::kNone;
  bool peer_closed_ = false;       // no CONNECTION_CLOSE of ours is due
  bool graceful_ = false;          // the peer closed with NO_ERROR
  std::uint64_t close_code_ = 0;   // application error for write_close
  bool close_is_transport_ = false;
  int close_liberr_ = 0;
  std::array<char, 256> reason_{};
};

}  // namespace pacer::quic
