// HTTP/3 behind the Session seam: nghttp3 over one quic::Connection, both driven
// in memory (datagrams in through receive()/receive_datagram(), packets out
// through datagrams()), so the session never touches a socket; the worker owns
// the UDP socket and moves datagrams (src/engine/conn/quic_link.cc). Requests are
// bidirectional streams; `streams` of them may be open at once (fewer while the
// server's MAX_STREAMS allows fewer). QUIC's timers (loss recovery, ACK delay,
// idle timeout) are next_timer_ns()/on_timer(), which the worker folds into its wake time.
//
// Life cycle: start() begins the handshake (Initial packet waiting); once
// handshake_completed(), the worker calls reset(), which opens the control and
// QPACK streams (SETTINGS). A stream the server resets ends its request as
// kStreamReset; a GOAWAY refuses the streams it did not process (kRefused) and
// takes no new requests (capacity 0). cancel() resets one stream (H3_REQUEST_CANCELLED)
// and the connection carries on.
//
// The requests' state by token, and nghttp3's callbacks, are RequestStreams'
// (quic/request_streams.h).
// Thread: the owning worker's; ngtcp2's and nghttp3's memory comes from that
// worker's H2Memory pool (size-class free lists), so requests reach no malloc
// once warmed up.
#pragma once

#include <nghttp3/nghttp3.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/config.h"
#include "proto/h2_memory.h"
#include "proto/session.h"
#include "quic/connection.h"
#include "quic/http3_request.h"
#include "quic/module.h"
#include "quic/request_streams.h"

namespace pacer::quic {

class Http3Session final : public DatagramSession, private StreamHandler {
 public:
  // requests: one per target (submit's `target` indexes it); they outlive the session.
  Http3Session(std::span<const Http3Request> requests, std::uint32_t streams, proto::H2Memory& memory);
  ~Http3Session() override;

  // DatagramSession (quic/module.h)
  bool start(const SessionSetup& setup, TimeNs now) override;
  bool handshake_completed() const override { return quic_.handshake_completed(); }
  bool resumed() const override { return quic_.resumed(); }
  Ending ending() const override { return quic_.ending(); }
  bool closed_gracefully() const override { return quic_.closed_gracefully(); }
  bool last_datagram_accepted() const override { return quic_.last_datagram_accepted(); }
  bool receive_datagram(const std::uint8_t* data, std::size_t length, TimeNs now,
                        proto::SessionEvents& events) override;
  bool fill_datagrams(TimeNs now) override;  // packets written by ngtcp2 on demand
  net::PacketBatch& datagrams() override { return out_; }
  void close(TimeNs now) override;
  void drop() override;
  TimeNs next_timer_ns() const override { return quic_.expiry(); }
  bool on_timer(TimeNs now) override;

  // proto::Session
  void reset() override;
  std::uint32_t capacity() const override;
  void submit(std::uint32_t token, std::uint32_t target) override;
  // The byte-stream half of the seam, for the Session contract only: the worker
  // moves datagrams itself (receive_datagram, fill_datagrams/datagrams()).
  // One datagram at a time (a send on a connected UDP socket keeps it whole).
  std::span<const char> pending_output() override;
  void consume(std::size_t bytes) override;
  bool receive(const char* data, std::size_t len, proto::SessionEvents& events) override;
  bool finish(proto::SessionEvents& events) override;
  bool cancel(std::uint32_t token) override;
  const char* error_reason() const override;
  std::uint64_t body_bytes(std::uint32_t token) const override { return requests_.body_bytes(token); }
  std::string_view server(std::uint32_t token) const override { return requests_.server(token); }
  void keep_server(bool keep) override { requests_.keep_server(keep); }
  void report_headers(bool on) override { requests_.report_headers(on); }

 private:
  // StreamHandler
  int on_stream_data(std::int64_t stream_id, const std::uint8_t* data, std::size_t length, bool fin) override;
  int on_acked(std::int64_t stream_id, std::uint64_t bytes) override;
  int on_stream_close(std::int64_t stream_id, std::uint64_t app_error_code) override;
  int on_stream_reset(std::int64_t stream_id, std::uint64_t app_error_code) override;
  int on_stop_sending(std::int64_t stream_id, std::uint64_t app_error_code) override;
  int on_stream_unblocked(std::int64_t stream_id) override;
  long next_stream_data(std::int64_t* stream_id, int* fin, ngtcp2_vec* vec, std::size_t count) override;
  int on_written(std::int64_t stream_id, std::size_t bytes) override;
  void on_stream_blocked(std::int64_t stream_id) override;
  void on_stream_shut(std::int64_t stream_id) override;

  int h3_failed(int rv, const char* what);
  void free_h3();

  proto::H2Memory& memory_;
  ngtcp2_mem ngtcp2_mem_{};
  nghttp3_mem nghttp3_mem_{};
  Connection quic_;
  net::PacketBatch out_;
  nghttp3_conn* h3_ = nullptr;
  RequestStreams requests_;  // nghttp3's user data
  bool broken_ = false;
  const char* error_reason_ = "";
};

}  // namespace pacer::quic
