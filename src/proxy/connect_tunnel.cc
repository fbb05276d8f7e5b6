// See connect_tunnel.h.
#include "proxy/connect_tunnel.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace pacer::proxy {

std::string connect_request(const Target& target, const ProxyConfig& proxy) {
  const bool v6 = target.host.find(':') != std::string::npos;
  const std::string authority = fmt::format("{}{}{}:{}", v6 ? "[" : "", target.host, v6 ? "]" : "", target.port);
  std::string out = fmt::format("CONNECT {} HTTP/1.1\r\nHost: {}\r\n", authority, authority);
  if (!proxy.authorization.empty()) out += fmt::format("Proxy-Authorization: {}\r\n", proxy.authorization);
  out += "\r\n";
  return out;
}

ConnectReply parse_connect_reply(std::string_view bytes) {
  ConnectReply reply;
  constexpr std::string_view kVersion = "HTTP/1.";
  // Judge the prefix as soon as there is one: a proxy that answers garbage fails now.
  const std::size_t have = std::min(bytes.size(), kVersion.size());
  if (bytes.substr(0, have) != kVersion.substr(0, have)) {
    reply.state = ConnectReply::State::kMalformed;
    return reply;
  }
  // The header ends at the first empty line; a bare LF ends lines too (RFC 9112 section 2.2).
  const std::size_t crlf = bytes.find("\r\n\r\n");
  const std::size_t lf = bytes.find("\n\n");
  const std::size_t crlf_end = crlf == std::string_view::npos ? std::string_view::npos : crlf + 4;
  const std::size_t lf_end = lf == std::string_view::npos ? std::string_view::npos : lf + 2;
  reply.header_bytes = std::min(crlf_end, lf_end);
  if (reply.header_bytes == std::string_view::npos) {
    reply.header_bytes = 0;
    if (bytes.size() >= kMaxReplyBytes) reply.state = ConnectReply::State::kTooLarge;
    return reply;
  }
  if (reply.header_bytes > kMaxReplyBytes) {
    reply.state = ConnectReply::State::kTooLarge;
    return reply;
  }
  // "HTTP/1.x SSS reason"
  const std::string_view line = bytes.substr(0, bytes.find_first_of("\r\n"));
  if (line.size() < 12 || (line[7] != '0' && line[7] != '1') || line[8] != ' ') {
    reply.state = ConnectReply::State::kMalformed;
    return reply;
  }
  int status = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') {
      reply.state = ConnectReply::State::kMalformed;
      return reply;
    }
    status = status * 10 + (line[i] - '0');
  }
  if (status < 100 || (line.size() > 12 && line[12] != ' ')) {
    reply.state = ConnectReply::State::kMalformed;
    return reply;
  }
  reply.status = status;
  reply.reason = line.size() > 13 ? line.substr(13) : std::string_view{};
  reply.state = ConnectReply::State::kDone;
  return reply;
}

TunnelProgress tunnel_step(int fd, std::string_view request, std::uint32_t& sent) {
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::uint32_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {TunnelStatus::kWantWrite, 0, 0};
    return {TunnelStatus::kFailed, 0, n < 0 ? errno : EPIPE};
  }
  std::array<char, kMaxReplyBytes> buffer;
  ssize_t got = 0;
  do {
    got = ::recv(fd, buffer.data(), buffer.size(), MSG_PEEK);
  } while (got < 0 && errno == EINTR);
  if (got < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {TunnelStatus::kWantRead, 0, 0};
    return {TunnelStatus::kFailed, 0, errno};
  }
  if (got == 0) return {TunnelStatus::kFailed, 0, 0};
  const ConnectReply reply = parse_connect_reply(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  if (reply.state == ConnectReply::State::kIncomplete) return {TunnelStatus::kWantRead, 0, 0};
  if (reply.state == ConnectReply::State::kMalformed) return {TunnelStatus::kFailed, 0, EPROTO};
  if (reply.state == ConnectReply::State::kTooLarge) return {TunnelStatus::kFailed, 0, EMSGSIZE};
  if (reply.status < 200 || reply.status > 299) return {TunnelStatus::kRefused, reply.status, 0};
  // Take exactly the reply: the tunnel's bytes after it stay for TLS or the session.
  ssize_t taken = 0;
  do {
    taken = ::recv(fd, buffer.data(), reply.header_bytes, 0);
  } while (taken < 0 && errno == EINTR);
  if (taken != static_cast<ssize_t>(reply.header_bytes)) return {TunnelStatus::kFailed, 0, taken < 0 ? errno : EPROTO};
  return {TunnelStatus::kOpen, reply.status, 0};
}

const char* describe_refusal(int status, char* out, std::size_t size) {
  const char* hint = status == 407   ? " (Proxy Authentication Required: give --proxy-user USER:PASS or "
                                       "user:pass@ in the proxy URL)"
                     : status == 403 ? " (Forbidden: the proxy's rules refuse this target or port)"
                     : status == 502 ? " (Bad Gateway: the proxy could not reach the target)"
                     : status == 503 ? " (Service Unavailable: the proxy could not reach the target)"
                                     : "";
  std::snprintf(out, size, "proxy refused the CONNECT tunnel: %d%s", status, hint);
  return out;
}

Status tunnel_blocking(int fd, std::string_view request, TimeNs timeout_ns) {
  const TimeNs deadline = monotonic_now_ns() + timeout_ns;
  std::uint32_t sent = 0;
  while (true) {
    const TunnelProgress p = tunnel_step(fd, request, sent);
    if (p.status == TunnelStatus::kOpen) return Ok{};
    if (p.status == TunnelStatus::kRefused) {
      std::array<char, 256> text{};
      return runtime_error(describe_refusal(p.http_status, text.data(), text.size()));
    }
    if (p.status == TunnelStatus::kFailed) {
      if (p.err == 0) return runtime_error("the proxy closed the connection before answering CONNECT");
      if (p.err == EPROTO) return runtime_error("the proxy's answer to CONNECT is not an HTTP/1.x response");
      if (p.err == EMSGSIZE) return runtime_error(fmt::format("the proxy: {}", kReplyTooLarge));
      return runtime_error(fmt::format("CONNECT through the proxy: {}", std::strerror(p.err)));
    }
    const TimeNs left = deadline - monotonic_now_ns();
    if (left <= 0) return runtime_error("the proxy did not answer CONNECT within --timeout");
    pollfd pfd{fd, static_cast<short>(p.status == TunnelStatus::kWantRead ? POLLIN : POLLOUT), 0};
    ::poll(&pfd, 1, static_cast<int>(std::min<TimeNs>(left / kNsPerMs + 1, 60'000)));
  }
}

}  // namespace pacer::proxy
