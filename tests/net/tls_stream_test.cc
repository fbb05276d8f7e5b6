// TlsStream (src/net/tls_stream.h) over a non-blocking socketpair: the handshake
// runs step by step through want-read/want-write, plaintext crosses both ways,
// failures carry their reason, and a second connection resumes the session.
#include "net/tls_stream.h"

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "../support/tls_files.h"
#include "core/unique_fd.h"
#include "net/transport.h"

namespace pacer::net {
namespace {

struct Pair {
  UniqueFd client_fd;
  UniqueFd server_fd;
  Pair() {
    int fds[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0) {
      client_fd.reset(fds[0]);
      server_fd.reset(fds[1]);
    }
  }
};

// Steps both sides until each is done or one fails; bounded.
void handshake_both(TlsStream& client, TlsStream& server, IoStatus& client_end, IoStatus& server_end) {
  client_end = server_end = IoStatus::kWantRead;
  for (int i = 0; i < 100; ++i) {
    if (client_end != IoStatus::kOk && client_end != IoStatus::kTlsError) client_end = client.handshake();
    if (server_end != IoStatus::kOk && server_end != IoStatus::kTlsError) server_end = server.handshake();
    const bool client_over = client_end == IoStatus::kOk || client_end == IoStatus::kTlsError;
    const bool server_over = server_end == IoStatus::kOk || server_end == IoStatus::kTlsError;
    if (client_over && (server_over || client_end == IoStatus::kTlsError)) return;
  }
}

TlsClientOptions client_options(const testing::TlsFiles& files, const std::string& host) {
  TlsClientOptions o;
  o.server_name = host;
  o.ca_file = files.cert;
  o.alpn = default_alpn();
  return o;
}

class TlsStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(files_.ok);
    auto server = TlsContext::server(files_.cert, files_.key);
    ASSERT_TRUE(server.ok()) << server.error().message;
    server_ctx_.emplace(std::move(*server));
  }
  // A handshake on a fresh pair, the client on `ctx`: the client's outcome, and
  // its failure reason ("" when none).
  std::pair<IoStatus, std::string> handshake_with(const TlsContext& ctx) {
    Pair p;
    TlsStream client;
    TlsStream server;
    EXPECT_TRUE(client.start_client(ctx, p.client_fd.get(), nullptr));
    EXPECT_TRUE(server.start_server(*server_ctx_, p.server_fd.get()));
    IoStatus c;
    IoStatus s;
    handshake_both(client, server, c, s);
    char reason[256] = "";
    if (c == IoStatus::kTlsError) client.describe_failure(reason);
    return {c, reason};
  }
  testing::TlsFiles files_;
  std::optional<TlsContext> server_ctx_;
};

TEST_F(TlsStreamTest, HandshakeCompletesAndPlaintextCrossesBothWays) {
  auto ctx = TlsContext::client(client_options(files_, "localhost"));
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  Pair p;
  TlsStream client;
  TlsStream server;
  ASSERT_TRUE(client.start_client(*ctx, p.client_fd.get(), nullptr));
  ASSERT_TRUE(server.start_server(*server_ctx_, p.server_fd.get()));
  EXPECT_EQ(client.handshake(), IoStatus::kWantRead);  // ClientHello sent; nothing back yet
  IoStatus c = IoStatus::kWantRead;
  IoStatus s = IoStatus::kWantRead;
  handshake_both(client, server, c, s);
  ASSERT_EQ(c, IoStatus::kOk);
  ASSERT_EQ(s, IoStatus::kOk);
  EXPECT_EQ(client.alpn(), "http/1.1");
  EXPECT_FALSE(client.resumed());

  const std::string request = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
  const IoResult w = stream_write(p.client_fd.get(), client, request.data(), request.size());
  ASSERT_EQ(w.status, IoStatus::kOk);
  EXPECT_EQ(w.bytes, request.size());
  char buf[256];
  const IoResult r = stream_read(p.server_fd.get(), server, buf, sizeof buf);
  ASSERT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, r.bytes), request);
  EXPECT_EQ(server.read(buf, sizeof buf).status, IoStatus::kWantRead);

  // The client reads ahead: a record that empties the socket says so; one with
  // another behind it (in the socket or in OpenSSL's buffer) does not.
  ASSERT_EQ(server.write("one", 3).status, IoStatus::kOk);
  IoResult got = client.read(buf, sizeof buf);
  ASSERT_EQ(got.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, got.bytes), "one");
  EXPECT_TRUE(read_drained(client, got.bytes, sizeof buf));
  ASSERT_EQ(server.write("two", 3).status, IoStatus::kOk);
  ASSERT_EQ(server.write("three", 5).status, IoStatus::kOk);
  got = client.read(buf, sizeof buf);
  ASSERT_EQ(got.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, got.bytes), "two");
  EXPECT_FALSE(read_drained(client, got.bytes, sizeof buf));
  // "three" came with "two" and is served from OpenSSL's buffer: that read makes
  // no recv, so it cannot say the socket is empty ("four" arrived meanwhile).
  ASSERT_EQ(server.write("four", 4).status, IoStatus::kOk);
  got = client.read(buf, sizeof buf);
  ASSERT_EQ(got.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, got.bytes), "three");
  EXPECT_FALSE(read_drained(client, got.bytes, sizeof buf));
  got = client.read(buf, sizeof buf);
  ASSERT_EQ(got.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, got.bytes), "four");
  EXPECT_TRUE(read_drained(client, got.bytes, sizeof buf));

  server.close();  // close_notify
  EXPECT_EQ(client.read(buf, sizeof buf).status, IoStatus::kClosed);
}

TEST_F(TlsStreamTest, UntrustedCertificateFailsWithTheVerifyReason) {
  TlsClientOptions o = client_options(files_, "localhost");
  o.ca_file.clear();  // the system store does not know this certificate
  auto ctx = TlsContext::client(o);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  const auto [outcome, reason] = handshake_with(*ctx);
  EXPECT_EQ(outcome, IoStatus::kTlsError);
  EXPECT_EQ(reason, "certificate verify failed: self-signed certificate");
}

TEST_F(TlsStreamTest, CertificateForAnotherNameFailsWithHostnameMismatch) {
  auto ctx = TlsContext::client(client_options(files_, "other.example"));
  ASSERT_TRUE(ctx.ok());
  const auto [outcome, reason] = handshake_with(*ctx);
  EXPECT_EQ(outcome, IoStatus::kTlsError);
  EXPECT_EQ(reason, "certificate verify failed: hostname mismatch");
}

TEST_F(TlsStreamTest, InsecureSkipsVerification) {
  TlsClientOptions o = client_options(files_, "other.example");
  o.ca_file.clear();
  o.verify_peer = false;
  auto ctx = TlsContext::client(o);
  ASSERT_TRUE(ctx.ok());
  EXPECT_EQ(handshake_with(*ctx).first, IoStatus::kOk);
}

// One full exchange on a fresh pair: handshake, a request, the server's reply
// (which carries the TLS 1.3 tickets to the client), close. Returns resumed().
bool connect_once(const TlsContext& client_ctx, const TlsContext& server_ctx, TlsSessionCache* cache) {
  Pair p;
  TlsStream client;
  TlsStream server;
  if (!client.start_client(client_ctx, p.client_fd.get(), cache)) return false;
  if (!server.start_server(server_ctx, p.server_fd.get())) return false;
  IoStatus c;
  IoStatus s;
  handshake_both(client, server, c, s);
  EXPECT_EQ(c, IoStatus::kOk);
  EXPECT_EQ(s, IoStatus::kOk);
  const bool resumed = client.resumed();
  char buf[512];
  EXPECT_EQ(client.write("ping", 4).status, IoStatus::kOk);
  EXPECT_EQ(server.read(buf, sizeof buf).status, IoStatus::kOk);
  EXPECT_EQ(server.write("pong", 4).status, IoStatus::kOk);
  IoResult r = client.read(buf, sizeof buf);
  EXPECT_EQ(r.status, IoStatus::kOk);
  client.close();
  server.close();
  return resumed;
}

TEST_F(TlsStreamTest, SecondConnectionResumesTheCachedSession) {
  auto ctx = TlsContext::client(client_options(files_, "localhost"));
  ASSERT_TRUE(ctx.ok());
  TlsSessionCache cache;
  EXPECT_FALSE(connect_once(*ctx, *server_ctx_, &cache));
  ASSERT_GE(cache.size(), 1u);
  EXPECT_TRUE(connect_once(*ctx, *server_ctx_, &cache));
  EXPECT_TRUE(connect_once(*ctx, *server_ctx_, &cache));
}

TEST_F(TlsStreamTest, WithoutResumptionEveryHandshakeIsFull) {
  TlsClientOptions o = client_options(files_, "localhost");
  o.resume_sessions = false;
  auto ctx = TlsContext::client(o);
  ASSERT_TRUE(ctx.ok());
  TlsSessionCache cache;
  EXPECT_FALSE(connect_once(*ctx, *server_ctx_, &cache));
  EXPECT_FALSE(connect_once(*ctx, *server_ctx_, &cache));
  EXPECT_EQ(cache.size(), 0u);
}

TEST_F(TlsStreamTest, ConnectionsStartingTogetherEachResumeAFreshTicket) {
  auto ctx = TlsContext::client(client_options(files_, "localhost"));
  ASSERT_TRUE(ctx.ok());
  TlsSessionCache cache;
  EXPECT_FALSE(connect_once(*ctx, *server_ctx_, &cache));
  ASSERT_GE(cache.size(), 2u);  // a full TLS 1.3 handshake brings two tickets
  // Two handshakes before either reads a new ticket: each takes its own.
  Pair a;
  Pair b;
  TlsStream ca, sa, cb, sb;
  ASSERT_TRUE(ca.start_client(*ctx, a.client_fd.get(), &cache));
  ASSERT_TRUE(cb.start_client(*ctx, b.client_fd.get(), &cache));
  ASSERT_TRUE(sa.start_server(*server_ctx_, a.server_fd.get()));
  ASSERT_TRUE(sb.start_server(*server_ctx_, b.server_fd.get()));
  IoStatus c, s;
  handshake_both(ca, sa, c, s);
  ASSERT_EQ(c, IoStatus::kOk);
  handshake_both(cb, sb, c, s);
  ASSERT_EQ(c, IoStatus::kOk);
  EXPECT_TRUE(ca.resumed());
  EXPECT_TRUE(cb.resumed());
}

TEST(Transport, PlainSocketsReportTheSameOutcomes) {
  Pair p;
  TlsStream none;
  char buf[8];
  EXPECT_EQ(stream_read(p.client_fd.get(), none, buf, sizeof buf).status, IoStatus::kWantRead);
  EXPECT_EQ(stream_write(p.server_fd.get(), none, "abc", 3).bytes, 3u);
  const IoResult r = stream_read(p.client_fd.get(), none, buf, sizeof buf);
  EXPECT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buf, r.bytes), "abc");
  EXPECT_TRUE(read_drained(none, r.bytes, sizeof buf));  // short
  EXPECT_FALSE(read_drained(none, sizeof buf, sizeof buf));
  p.server_fd.reset();
  EXPECT_EQ(stream_read(p.client_fd.get(), none, buf, sizeof buf).status, IoStatus::kClosed);
  EXPECT_EQ(stream_write(p.client_fd.get(), none, "x", 1).status, IoStatus::kError);  // EPIPE, no SIGPIPE
}

}  // namespace
}  // namespace pacer::net
