// TLS context set-up (src/net/tls_context.h): every unusable file is refused with
// a message naming the flag and the file.
#include "net/tls_context.h"

#include <gtest/gtest.h>

#include <fstream>

#include "../support/tls_files.h"

namespace pacer::net {
namespace {

TlsClientOptions verifying(const std::string& ca_file) {
  TlsClientOptions o;
  o.server_name = "localhost";
  o.ca_file = ca_file;
  o.alpn = default_alpn();
  return o;
}

std::string write_text(const testing::TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

TEST(TlsContext, AlpnWireFormatPrefixesEachNameWithItsLength) {
  EXPECT_EQ(alpn_wire({"h2", "http/1.1"}), std::string("\x02h2\x08http/1.1"));
  EXPECT_EQ(alpn_wire({}), "");
  EXPECT_EQ(default_alpn(), std::vector<std::string>{"http/1.1"});
}

TEST(TlsContext, ClientWithThePrivateCaAndTheSystemStoreBothBuild) {
  testing::TlsFiles files;
  ASSERT_TRUE(files.ok);
  auto with_ca = TlsContext::client(verifying(files.cert));
  ASSERT_TRUE(with_ca.ok()) << with_ca.error().message;
  EXPECT_TRUE(with_ca->sends_sni());
  auto system = TlsContext::client(verifying(""));
  EXPECT_TRUE(system.ok()) << system.error().message;
}

TEST(TlsContext, AddressLiteralGetsNoSni) {
  TlsClientOptions o = verifying("");
  o.server_name = "127.0.0.1";
  auto ctx = TlsContext::client(o);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  EXPECT_FALSE(ctx->sends_sni());
}

TEST(TlsContext, CaFileWithoutCertificatesIsRefusedByName) {
  testing::TempDir dir;
  const std::string junk = write_text(dir, "junk.pem", "not a certificate\n");
  auto ctx = TlsContext::client(verifying(junk));
  ASSERT_FALSE(ctx.ok());
  EXPECT_EQ(ctx.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(ctx.error().message.find("--cacert: cannot load CA certificates from '" + junk + "'"), std::string::npos)
      << ctx.error().message;
}

TEST(TlsContext, ClientKeyThatDoesNotMatchItsCertificateIsRefused) {
  testing::TlsFiles a;
  testing::TlsFiles b;
  ASSERT_TRUE(a.ok && b.ok);
  TlsClientOptions o = verifying(a.cert);
  o.cert_file = a.cert;
  o.key_file = b.key;
  auto ctx = TlsContext::client(o);
  ASSERT_FALSE(ctx.ok());
  EXPECT_EQ(ctx.error().kind, ErrorKind::kBadInput);
  EXPECT_EQ(ctx.error().message,
            "--key: the key in '" + b.key + "' does not match the certificate in '" + a.cert + "'");
}

TEST(TlsContext, ClientCertificateThatIsNotPemIsRefusedByName) {
  testing::TlsFiles a;
  testing::TempDir dir;
  const std::string junk = write_text(dir, "cert.pem", "junk");
  TlsClientOptions o = verifying(a.cert);
  o.cert_file = junk;
  o.key_file = a.key;
  auto ctx = TlsContext::client(o);
  ASSERT_FALSE(ctx.ok());
  EXPECT_NE(ctx.error().message.find("--cert: cannot load a PEM certificate from '" + junk + "'"), std::string::npos)
      << ctx.error().message;
}

TEST(TlsContext, CertWithoutKeyIsABadArgument) {
  testing::TlsFiles a;
  TlsClientOptions o = verifying(a.cert);
  o.cert_file = a.cert;
  auto ctx = TlsContext::client(o);
  ASSERT_FALSE(ctx.ok());
  EXPECT_EQ(ctx.error().kind, ErrorKind::kBadArgument);
}

TEST(TlsContext, ServerNeedsAMatchingPair) {
  testing::TlsFiles a;
  testing::TlsFiles b;
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_TRUE(TlsContext::server(a.cert, a.key).ok());
  auto mismatched = TlsContext::server(a.cert, b.key);
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.error().message,
            "--tls: the key in '" + b.key + "' does not match the certificate in '" + a.cert + "'");
  auto missing = TlsContext::server("/nonexistent/cert.pem", a.key);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("'/nonexistent/cert.pem'"), std::string::npos);
}

}  // namespace
}  // namespace pacer::net
