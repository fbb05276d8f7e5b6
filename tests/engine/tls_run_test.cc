// Component tests: the engine over HTTPS against `pacer serve --tls` in-process
// (a fresh self-signed certificate per test), for a few hundred milliseconds each.
#include "engine/run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "../support/loopback.h"
#include "../support/run_ok.h"
#include "../support/tls_files.h"
#include "core/unique_fd.h"

namespace pacer::engine {
namespace {

using pacer::testing::config_for;

Config https_config(const server::Server& srv, const pacer::testing::TlsFiles& files, const std::string& path) {
  Config c = config_for(srv, path);
  c.target.scheme = "https";
  c.target.url = "https://127.0.0.1:" + std::to_string(srv.port()) + path;
  c.tls_ca_file = files.cert;
  return c;
}

using pacer::testing::run_ok;

TEST(EngineTls, RequestsOverHttpsAreAnsweredAndHandshakesTimed) {
  pacer::testing::TlsFiles files;
  ASSERT_TRUE(files.ok);
  auto srv = pacer::testing::start_tls_server(files);
  ASSERT_NE(srv, nullptr);
  Config c = https_config(*srv, files, "/bytes/100000");  // bodies of several TLS records
  c.connections = 4;
  c.request_count = 400;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 400u);
  EXPECT_EQ(r.counters.status_counts[200], 400u);
  EXPECT_EQ(r.counters.errors.socket_total(), 0u);
  EXPECT_EQ(r.counters.tls_handshakes, 4u);
  EXPECT_EQ(r.tls_handshake.total_count(), 4);
  EXPECT_GT(r.tls_handshake.min(), 0);
  EXPECT_TRUE(r.tls_first_error.empty());
  EXPECT_GE(r.counters.bytes_read, 400u * 100000u);
}

// The start-up connection's handshake fails: the run stops before any load with
// the reason, even with -n (which would otherwise retry for ever).
TEST(EngineTls, UntrustedServerStopsTheRunAtTheFirstHandshakeWithTheReason) {
  pacer::testing::TlsFiles files;
  auto srv = pacer::testing::start_tls_server(files);
  ASSERT_NE(srv, nullptr);
  Config c = https_config(*srv, files, "/");
  c.tls_ca_file.clear();  // the system store does not trust it
  c.request_count = 10;
  std::atomic<bool> stop{false};
  auto result = run(c, stop);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::kRuntime);
  EXPECT_NE(result.error().message.find("TLS handshake failed: certificate verify failed: self-signed certificate"),
            std::string::npos)
      << result.error().message;
  EXPECT_EQ(srv->requests_answered(), 0u);
}

TEST(EngineTls, InsecureAcceptsAnyCertificate) {
  pacer::testing::TlsFiles files({"somewhere.else"});
  auto srv = pacer::testing::start_tls_server(files);
  ASSERT_NE(srv, nullptr);
  Config c = https_config(*srv, files, "/");
  c.tls_ca_file.clear();
  c.tls_verify = false;
  c.request_count = 50;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 50u);
  EXPECT_EQ(r.counters.errors.tls, 0u);
}

TEST(EngineTls, ReconnectsResumeTheSessionUnlessTurnedOff) {
  pacer::testing::TlsFiles files;
  auto srv = pacer::testing::start_tls_server(files);
  ASSERT_NE(srv, nullptr);
  Config c = https_config(*srv, files, "/");
  c.keep_alive = false;  // one connection per request
  c.connections = 2;
  c.threads = 1;
  c.request_count = 40;
  const report::RunReport resumed = run_ok(c);
  EXPECT_EQ(resumed.counters.responses, 40u);
  ASSERT_GE(resumed.counters.tls_handshakes, 40u);
  // Each slot's first connection has nothing to resume; the reconnects do.
  EXPECT_GE(resumed.counters.tls_resumed, resumed.counters.tls_handshakes - 2 * 2);

  c.tls_resume = false;
  const report::RunReport full = run_ok(c);
  EXPECT_EQ(full.counters.responses, 40u);
  EXPECT_GE(full.counters.tls_handshakes, 40u);
  EXPECT_EQ(full.counters.tls_resumed, 0u);
}

TEST(EngineTls, AServerThatDoesNotSpeakTlsStopsTheRunWithTheReason) {
  auto plain = pacer::testing::start_loopback_server();  // answers the ClientHello as bad HTTP
  ASSERT_NE(plain, nullptr);
  pacer::testing::TlsFiles files;
  Config c = https_config(*plain, files, "/");
  c.request_count = 10;
  std::atomic<bool> stop{false};
  auto result = run(c, stop);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("TLS handshake failed: wrong version number"), std::string::npos)
      << result.error().message;
}

TEST(EngineTls, AServerThatNeverAnswersTheHandshakeStopsTheRunWhenTheTimeoutPasses) {
  // A listening socket nobody accepts from: TCP connects, the ClientHello waits.
  std::uint16_t port = 0;
  const UniqueFd listener = pacer::testing::listen_never_accepting(8, port);
  ASSERT_TRUE(listener.valid());
  Config c = pacer::testing::config_for_port(port, "/", "https");
  c.tls_verify = false;
  c.connections = 1;
  c.threads = 1;
  c.timeout_ns = 100 * kNsPerMs;
  c.request_count = 10;
  std::atomic<bool> stop{false};
  auto result = run(c, stop);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("TLS handshake timed out"), std::string::npos) << result.error().message;
}

TEST(EngineTls, BadCaFileStopsTheRunBeforeAnyConnection) {
  pacer::testing::TlsFiles files;
  auto srv = pacer::testing::start_tls_server(files);
  ASSERT_NE(srv, nullptr);
  Config c = https_config(*srv, files, "/");
  c.tls_ca_file = files.key;  // a key, not a certificate
  std::atomic<bool> stop{false};
  auto result = run(c, stop);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::kBadInput);
  EXPECT_EQ(srv->connections_accepted(), 0u);
}

}  // namespace
}  // namespace pacer::engine
