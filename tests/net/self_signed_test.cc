// Self-signed certificate generation (src/net/self_signed.h): the PEM read back
// names the hosts, is signed by its own key, and the files land where asked.
#include "net/self_signed.h"

#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "../support/tls_files.h"

namespace pacer::net {
namespace {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

std::unique_ptr<X509, X509Free> read_cert(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  return std::unique_ptr<X509, X509Free>(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

std::unique_ptr<EVP_PKEY, PkeyFree> read_key(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  return std::unique_ptr<EVP_PKEY, PkeyFree>(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

TEST(SelfSigned, CertificateNamesEveryHostAndNoOther) {
  auto pair = make_self_signed(default_certificate_hosts(), 30);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto cert = read_cert(pair->certificate_pem);
  ASSERT_NE(cert, nullptr);
  EXPECT_EQ(X509_check_host(cert.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "::1", 0), 1);
  EXPECT_EQ(X509_check_host(cert.get(), "example.com", 0, 0, nullptr), 0);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "10.0.0.1", 0), 0);
}

TEST(SelfSigned, CertificateIsSignedByItsOwnKeyWhichIsInThePair) {
  auto pair = make_self_signed({"pacer.test"}, 1);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto cert = read_cert(pair->certificate_pem);
  auto key = read_key(pair->private_key_pem);
  ASSERT_NE(cert, nullptr);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(X509_check_private_key(cert.get(), key.get()), 1);
  EXPECT_EQ(X509_verify(cert.get(), key.get()), 1);
  EXPECT_EQ(X509_NAME_cmp(X509_get_subject_name(cert.get()), X509_get_issuer_name(cert.get())), 0);
  EXPECT_EQ(EVP_PKEY_get_base_id(key.get()), EVP_PKEY_EC);
  EXPECT_LT(X509_cmp_current_time(X509_get0_notBefore(cert.get())), 0);
  EXPECT_GT(X509_cmp_current_time(X509_get0_notAfter(cert.get())), 0);
}

TEST(SelfSigned, TwoPairsHaveDifferentKeysAndSerials) {
  auto a = make_self_signed({"localhost"}, 1);
  auto b = make_self_signed({"localhost"}, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->private_key_pem, b->private_key_pem);
  auto ca = read_cert(a->certificate_pem);
  auto cb = read_cert(b->certificate_pem);
  EXPECT_NE(ASN1_INTEGER_cmp(X509_get0_serialNumber(ca.get()), X509_get0_serialNumber(cb.get())), 0);
}

TEST(SelfSigned, NoHostsOrNoDaysIsRefused) {
  EXPECT_FALSE(make_self_signed({}, 1).ok());
  EXPECT_FALSE(make_self_signed({"localhost"}, 0).ok());
}

TEST(SelfSigned, PairIsWrittenAsCertAndPrivateKeyFiles) {
  testing::TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  auto pair = make_self_signed({"localhost"}, 1);
  ASSERT_TRUE(pair.ok());
  ASSERT_TRUE(write_pem_pair(*pair, dir.path()).ok());
  std::ifstream cert(dir.file("cert.pem"));
  std::stringstream text;
  text << cert.rdbuf();
  EXPECT_EQ(text.str(), pair->certificate_pem);
  struct stat info {};
  ASSERT_EQ(::stat(dir.file("key.pem").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(SelfSigned, AMissingDirectoryIsCreatedAsMkdirPWould) {
  auto pair = make_self_signed({"localhost"}, 1);
  ASSERT_TRUE(pair.ok());
  char base[] = "/tmp/pacer-cert-XXXXXX";
  ASSERT_NE(::mkdtemp(base), nullptr);
  const std::string dir = std::string(base) + "/a/b";
  ASSERT_TRUE(write_pem_pair(*pair, dir).ok());
  EXPECT_EQ(::access((dir + "/cert.pem").c_str(), R_OK), 0);
  EXPECT_EQ(::access((dir + "/key.pem").c_str(), R_OK), 0);
  std::filesystem::remove_all(base);
}

TEST(SelfSigned, ADirectoryThatCannotBeMadeIsNamed) {
  auto pair = make_self_signed({"localhost"}, 1);
  ASSERT_TRUE(pair.ok());
  const Status written = write_pem_pair(*pair, "/dev/null/pacer-dir");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("/dev/null/pacer-dir"), std::string::npos);
}

}  // namespace
}  // namespace pacer::net
