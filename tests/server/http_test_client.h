// A tiny blocking HTTP/1.1 client for the server tests: sends raw bytes to
// 127.0.0.1, reads whole responses (Content-Length, chunked, or until close), with
// a deadline on every read so a broken server fails a test instead of hanging it.
// Also: starting an in-process Server on port 0 and waiting for a condition.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "core/unique_fd.h"
#include "server/server.h"

namespace pacer::server::testkit {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Milliseconds since `since`, as a double.
inline double elapsed_ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

inline std::unique_ptr<Server> start_server(ServeConfig config = {}) {
  config.listen_host = "127.0.0.1";
  config.listen_port = 0;
  Result<std::unique_ptr<Server>> server = Server::start(config);
  if (!server) {
    ADD_FAILURE() << "Server::start: " << server.error().message;
    return nullptr;
  }
  return std::move(*server);
}

// Polls condition until it holds or timeout passes; returns its last value.
template <typename Condition>
bool wait_until(Condition condition, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = Clock::now() + timeout;
  while (!condition()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

inline std::string get(std::string_view path, std::string_view extra_headers = "") {
  return "GET " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + std::string(extra_headers) + "\r\n";
}

struct HttpResponse {
  int status = 0;
  std::string head;  // status line and headers, including the blank line
  std::string body;  // decoded body
  std::size_t chunk_count = 0;
  std::size_t largest_chunk_bytes = 0;

  // The value of header name (case-insensitive), if present.
  std::optional<std::string> header(std::string_view name) const {
    std::size_t line = head.find("\r\n") + 2;
    while (line < head.size()) {
      const std::size_t end = head.find("\r\n", line);
      const std::string_view field(head.data() + line, end - line);
      const std::size_t colon = field.find(':');
      if (colon == name.size() && std::equal(name.begin(), name.end(), field.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
          })) {
        std::string_view value = field.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        return std::string(value);
      }
      line = end + 2;
    }
    return std::nullopt;
  }
};

class TestClient {
 public:
  explicit TestClient(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int one = 1;
    ::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    connected_ = ::connect(fd_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    EXPECT_TRUE(connected_) << "connect to 127.0.0.1:" << port;
  }

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t sent = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(sent));
    }
    return true;
  }

  // Reads one response; head_only for replies to HEAD. nullopt on close, timeout
  // or a response that does not parse.
  std::optional<HttpResponse> read_response(bool head_only = false, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    std::size_t head_end;
    while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill(deadline)) return std::nullopt;
    }
    HttpResponse response;
    response.head = buffer_.substr(0, head_end + 4);
    buffer_.erase(0, head_end + 4);
    if (response.head.size() < 12 || !response.head.starts_with("HTTP/1.1 ")) return std::nullopt;
    response.status = std::stoi(response.head.substr(9, 3));
    if (head_only || response.status == 204 || response.status == 304) return response;
    if (response.header("Transfer-Encoding") == "chunked") {
      if (!read_chunked(response, deadline)) return std::nullopt;
      return response;
    }
    const std::optional<std::string> length = response.header("Content-Length");
    if (!length) return std::nullopt;
    const std::size_t body_bytes = std::stoull(*length);
    while (buffer_.size() < body_bytes) {
      if (!fill(deadline)) return std::nullopt;
    }
    response.body = buffer_.substr(0, body_bytes);
    buffer_.erase(0, body_bytes);
    return response;
  }

  // Reads until the peer closes; returns everything not yet consumed, or nullopt
  // on timeout.
  std::optional<std::string> read_until_closed(std::chrono::milliseconds timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    while (!eof_) {
      if (!fill(deadline) && !eof_) return std::nullopt;
    }
    return std::exchange(buffer_, {});
  }

  // True if nothing arrives (and the peer does not close) within wait.
  bool stays_quiet_for(std::chrono::milliseconds wait) { return !fill(Clock::now() + wait) && !eof_ && buffer_.empty(); }

  void close() { fd_.reset(); }
  bool connected() const { return connected_; }
  // The socket, to poll several clients at once; read through read_response.
  int fd() const { return fd_.get(); }

 private:
  bool fill(Clock::time_point deadline) {
    if (eof_) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd readable{fd_.get(), POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0))) <= 0) return false;
    char chunk[64 * 1024];
    const ssize_t got = ::recv(fd_.get(), chunk, sizeof chunk, 0);
    if (got <= 0) {
      eof_ = true;
      return false;
    }
    buffer_.append(chunk, static_cast<std::size_t>(got));
    return true;
  }

  bool read_line(std::string& line, Clock::time_point deadline) {
    std::size_t end;
    while ((end = buffer_.find("\r\n")) == std::string::npos) {
      if (!fill(deadline)) return false;
    }
    line = buffer_.substr(0, end);
    buffer_.erase(0, end + 2);
    return true;
  }

  bool read_chunked(HttpResponse& response, Clock::time_point deadline) {
    for (;;) {
      std::string size_line;
      if (!read_line(size_line, deadline)) return false;
      const std::size_t chunk_bytes = std::stoull(size_line, nullptr, 16);
      if (chunk_bytes == 0) {
        std::string trailer;
        return read_line(trailer, deadline) && trailer.empty();
      }
      while (buffer_.size() < chunk_bytes + 2) {
        if (!fill(deadline)) return false;
      }
      if (buffer_.compare(chunk_bytes, 2, "\r\n") != 0) return false;
      response.body.append(buffer_, 0, chunk_bytes);
      buffer_.erase(0, chunk_bytes + 2);
      ++response.chunk_count;
      response.largest_chunk_bytes = std::max(response.largest_chunk_bytes, chunk_bytes);
    }
  }

  UniqueFd fd_;
  bool connected_ = false;
  bool eof_ = false;
  std::string buffer_;
};

}  // namespace pacer::server::testkit
