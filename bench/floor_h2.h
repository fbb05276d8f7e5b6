// The floor client's HTTP/2 (bench/floor_client.cc --http2 -m STREAMS): the
// least a client can do per request over h2c with prior knowledge, to set pacer's
// and h2load's CPU per request against (bench/compare_h2load.sh). Per connection
// it keeps STREAMS requests in flight; per readable edge, one read until the
// socket is drained, then one write with every request that the read's responses
// let go (closed loop) and the frames the protocol owes (SETTINGS and PING
// acknowledgements, the connection's window). No HPACK decoder, no streams'
// state: frames are walked by their 9-byte headers, and a response ends at the
// END_STREAM flag.
//
// Requests: the first on a connection adds :path and :authority to the server's
// HPACK table, and every later one is four indexed bytes (what h2load and pacer
// send too). Responses must be 200s without trailers: every HEADERS frame's
// block must start with the static table's ":status: 200" (0x88); anything else
// (a 1xx, an error, a padded or continued block, RST_STREAM, GOAWAY) stops the
// run with an error, so a server that changes its answers cannot produce a silent
// wrong count.
#pragma once

#include <sys/epoll.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "floor_common.h"

namespace floor_client {

class Http2Floor : public FloorThread {
 public:
  Http2Floor(const Options& options, int connections) : options_(options), buffer_(65536) {
    if (options.path.size() > 126 || options.authority.size() > 126) die("--http2: the path and the host:port must each be under 127 bytes");
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    connections_.resize(static_cast<std::size_t>(connections));
    for (Connection& c : connections_) c.fd = dial(options);
  }

  ThreadResult run(const std::atomic<bool>& stop) override {
    for (std::size_t i = 0; i < connections_.size(); ++i) {
      Connection& c = connections_[i];
      epoll_event event{};
      event.events = EPOLLIN | EPOLLET;
      event.data.u64 = i;
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &event);
      c.out = preface();
      for (int s = 0; s < options_.streams; ++s) request(c);
      flush(c);
    }
    std::vector<epoll_event> events(256);
    while (!stop.load(std::memory_order_relaxed)) {
      const int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 100);
      for (int e = 0; e < n; ++e) read_frames(connections_[events[static_cast<std::size_t>(e)].data.u64]);
    }
    for (const Connection& c : connections_) ::close(c.fd);
    ::close(epoll_);
    return result_;
  }

 private:
  static constexpr std::uint8_t kData = 0, kHeaders = 1, kRstStream = 3, kSettings = 4, kPing = 6, kGoaway = 7;
  static constexpr std::uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4, kPadded = 0x8, kPriority = 0x20;
  static constexpr std::uint8_t kStatus200 = 0x88;         // HPACK static table index 8, indexed
  static constexpr std::uint32_t kMaxWindow = 0x7fffffff;  // RFC 9113 6.9.1
  static constexpr std::uint64_t kWindowRefill = 1u << 30;

  struct Connection {
    int fd = -1;
    std::uint32_t next_stream = 1;
    bool indexed = false;  // the server's HPACK table has :path and :authority
    // The frame being read: its header as it arrives, then what is left of its payload.
    std::array<std::uint8_t, 9> head{};
    std::size_t head_bytes = 0;
    std::uint32_t payload_left = 0;
    std::uint32_t payload_read = 0;
    std::string control;  // a PING's payload, to echo
    std::uint64_t window_used = 0;  // DATA bytes since the last WINDOW_UPDATE of the connection
    std::string out;
  };

  std::uint8_t type(const Connection& c) const { return c.head[3]; }
  std::uint8_t flags(const Connection& c) const { return c.head[4]; }

  static void frame_header(std::string& out, std::uint32_t length, std::uint8_t type, std::uint8_t flags, std::uint32_t stream) {
    const char header[9] = {static_cast<char>(length >> 16), static_cast<char>(length >> 8), static_cast<char>(length),
                            static_cast<char>(type),         static_cast<char>(flags),       static_cast<char>(stream >> 24),
                            static_cast<char>(stream >> 16), static_cast<char>(stream >> 8), static_cast<char>(stream)};
    out.append(header, sizeof header);
  }

  static void u32(std::string& out, std::uint32_t v) {
    const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
    out.append(b, sizeof b);
  }

  // The connection preface, SETTINGS (no push, the largest stream window) and the
  // largest connection window.
  static std::string preface() {
    std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    frame_header(out, 12, kSettings, 0, 0);
    out.append("\x00\x02", 2);
    u32(out, 0);  // SETTINGS_ENABLE_PUSH
    out.append("\x00\x04", 2);
    u32(out, kMaxWindow);  // SETTINGS_INITIAL_WINDOW_SIZE
    window_update(out, kMaxWindow - 65535);
    return out;
  }

  static void window_update(std::string& out, std::uint32_t increment) {
    frame_header(out, 4, 8, 0, 0);
    u32(out, increment);
  }

  // GET PATH on the connection's next stream.
  void request(Connection& c) const {
    std::string block = "\x82\x86";  // :method GET, :scheme http
    if (c.indexed) {
      block += "\xbf\xbe";  // dynamic table: 63 :path, 62 :authority
    } else {
      // Literal with incremental indexing, names from the static table (4 :path, 1 :authority).
      block += '\x44';
      block += static_cast<char>(options_.path.size());
      block += options_.path;
      block += '\x41';
      block += static_cast<char>(options_.authority.size());
      block += options_.authority;
      c.indexed = true;
    }
    frame_header(c.out, static_cast<std::uint32_t>(block.size()), kHeaders, kEndStream | kEndHeaders, c.next_stream);
    c.out += block;
    c.next_stream += 2;
  }

  void flush(Connection& c) {
    if (c.window_used >= kWindowRefill) {
      window_update(c.out, static_cast<std::uint32_t>(kWindowRefill));
      c.window_used -= kWindowRefill;
    }
    if (c.out.empty()) return;
    send_all(c.fd, c.out);
    c.out.clear();
  }

  void read_frames(Connection& c) {
    while (true) {
      const ssize_t n = receive(c.fd, buffer_.data(), buffer_.size(), options_.stamps);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) die(n == 0 ? "the server closed a connection" : std::string("read: ") + std::strerror(errno));
      result_.bytes += static_cast<std::uint64_t>(n);
      walk(c, reinterpret_cast<const std::uint8_t*>(buffer_.data()), static_cast<std::size_t>(n));
      if (static_cast<std::size_t>(n) < buffer_.size()) break;  // drained: the next edge brings more
    }
    flush(c);
  }

  void walk(Connection& c, const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
      if (c.head_bytes < c.head.size()) {
        const std::size_t take = std::min(c.head.size() - c.head_bytes, n);
        std::memcpy(c.head.data() + c.head_bytes, p, take);
        c.head_bytes += take;
        p += take;
        n -= take;
        if (c.head_bytes == c.head.size()) begin_frame(c);
        continue;
      }
      const std::size_t take = std::min<std::size_t>(c.payload_left, n);
      payload(c, p, take);
      p += take;
      n -= take;
      c.payload_left -= static_cast<std::uint32_t>(take);
      c.payload_read += static_cast<std::uint32_t>(take);
      if (c.payload_left == 0) end_frame(c);
    }
  }

  void begin_frame(Connection& c) {
    c.payload_left = (std::uint32_t{c.head[0]} << 16) | (std::uint32_t{c.head[1]} << 8) | c.head[2];
    c.payload_read = 0;
    c.control.clear();
    if (type(c) == kHeaders && (flags(c) & kPadded) != 0) die("a padded HEADERS frame (the floor reads none)");
    if (type(c) == kHeaders && (flags(c) & kEndHeaders) == 0) die("a HEADERS frame continued (the floor reads no CONTINUATION)");
    if (c.payload_left == 0) end_frame(c);
  }

  void payload(Connection& c, const std::uint8_t* p, std::size_t n) {
    if (n == 0) return;
    switch (type(c)) {
      case kData:
        c.window_used += n;
        break;
      case kHeaders: {
        // The block starts after PRIORITY's 5 bytes when that flag is set.
        const std::uint32_t start = (flags(c) & kPriority) != 0 ? 5 : 0;
        if (c.payload_read <= start && start < c.payload_read + n && p[start - c.payload_read] != kStatus200) {
          die("a response is not a 200 (its header block does not start with :status 200)");
        }
        break;
      }
      case kPing:
        c.control.append(reinterpret_cast<const char*>(p), n);
        break;
      default:
        break;
    }
  }

  void end_frame(Connection& c) {
    c.head_bytes = 0;
    switch (type(c)) {
      case kData:
      case kHeaders:
        if ((flags(c) & kEndStream) != 0) {
          ++result_.responses;
          request(c);  // closed loop: the next request, sent with the rest after this read
        }
        break;
      case kSettings:
        if ((flags(c) & kAck) == 0) frame_header(c.out, 0, kSettings, kAck, 0);
        break;
      case kPing:
        if ((flags(c) & kAck) == 0) {
          frame_header(c.out, static_cast<std::uint32_t>(c.control.size()), kPing, kAck, 0);
          c.out += c.control;
        }
        break;
      case kRstStream:
        die("the server reset a stream");
      case kGoaway:
        die("the server sent GOAWAY");
      default:
        break;  // PRIORITY, WINDOW_UPDATE and unknown frames: nothing owed
    }
  }

  const Options& options_;
  int epoll_ = -1;
  std::vector<Connection> connections_;
  std::vector<char> buffer_;
  ThreadResult result_;
};

}  // namespace floor_client
