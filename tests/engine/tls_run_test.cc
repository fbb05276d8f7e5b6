// Component tests: the engine over HTTPS against `pacer serve --tls` in-process
// (a fresh self-signed certificate per test), for a few hundred milliseconds each.
#include "engine/run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "../support/loopback.h"
#include "../support/tls_files.h"

namespace pacer::engine {
namespace {

using pacer::testing::config_for;

Config https_config(const server::Server& srv, const testing::TlsFiles& files, const std::string& path) {
  Config c = config_for(srv, path);
  c.target.scheme = "https";
  c.target.url = "https://127.0.0.1:" + std::to_string(srv.port()) + path;
  c.tls_ca_file = files.cert;
  return c;
}

report::RunReport run_ok(const Config& config) {
  std::atomic<bool> stop{false};
  auto result = run(config, stop);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? std::move(*result) : report::RunReport{};
}

TEST(EngineTls, RequestsOverHttpsAreAnsweredAndHandshakesTimed) {
  testing::TlsFiles files;
  ASSERT_TRUE(files.ok);
  auto srv = testing::start_tls_server(files);
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

TEST(EngineTls, UntrustedServerCountsTlsErrorsWithTheFirstReason) {
  testing::TlsFiles files;
  auto srv = testing::start_tls_server(files);
  ASSERT_NE(srv, nullptr);
  Config c = https_config(*srv, files, "/");
  c.tls_ca_file.clear();  // the system store does not trust it
  c.duration_ns = 200 * kNsPerMs;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 0u);
  EXPECT_GE(r.counters.errors.tls, 4u);
  EXPECT_EQ(r.counters.errors.connect, 0u);
  EXPECT_EQ(r.tls_first_error, "certificate verify failed: self-signed certificate");
  EXPECT_TRUE(report::no_request_succeeded(r));
}

TEST(EngineTls, InsecureAcceptsAnyCertificate) {
  testing::TlsFiles files({"somewhere.else"});
  auto srv = testing::start_tls_server(files);
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
  testing::TlsFiles files;
  auto srv = testing::start_tls_server(files);
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

TEST(EngineTls, ServerThatNeverHandshakesTimesOutAsATlsError) {
  auto plain = testing::start_loopback_server();  // speaks HTTP, waits for a request line
  ASSERT_NE(plain, nullptr);
  testing::TlsFiles files;
  Config c = https_config(*plain, files, "/");
  c.connections = 1;
  c.timeout_ns = 100 * kNsPerMs;
  c.duration_ns = 350 * kNsPerMs;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 0u);
  EXPECT_GE(r.counters.errors.tls, 1u);
  EXPECT_FALSE(r.tls_first_error.empty());
}

TEST(EngineTls, BadCaFileStopsTheRunBeforeAnyConnection) {
  testing::TlsFiles files;
  auto srv = testing::start_tls_server(files);
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
