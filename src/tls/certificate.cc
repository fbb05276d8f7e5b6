// Self-signed certificate generation with OpenSSL's EVP and X509 APIs. See
// certificate.h.
#include "tls/certificate.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>

#include <fmt/format.h>

#include "tls/openssl_context.h"

namespace pacer::tls {
namespace {

constexpr long kSecondsPerDay = 24 * 3600;
constexpr long kBackdateSeconds = 3600;  // tolerate a peer's clock a little behind

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct ExtensionFree {
  void operator()(X509_EXTENSION* e) const { X509_EXTENSION_free(e); }
};

bool is_address(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

std::string subject_alt_names(const std::vector<std::string>& hosts) {
  std::string out;
  for (const std::string& h : hosts) out += fmt::format("{}{}:{}", out.empty() ? "" : ",", is_address(h) ? "IP" : "DNS", h);
  return out;
}

bool add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, ExtensionFree> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

bool set_random_serial(X509* cert) {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return false;
  bytes[0] &= 0x7f;  // a positive serial
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn(BN_bin2bn(bytes, sizeof bytes, nullptr), &BN_free);
  return bn && BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) != nullptr;
}

Result<std::string> to_pem(const std::function<int(BIO*)>& write) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (!bio || write(bio.get()) != 1) return runtime_error(take_openssl_error("cannot encode PEM"));
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(length));
}

Result<std::unique_ptr<X509, X509Free>> build_certificate(EVP_PKEY* key, const std::vector<std::string>& hosts,
                                                          int valid_days) {
  std::unique_ptr<X509, X509Free> cert(X509_new());
  if (!cert) return runtime_error(take_openssl_error("cannot create a certificate"));
  X509* x = cert.get();
  X509_NAME* name = X509_get_subject_name(x);
  const bool ok =
      X509_set_version(x, 2) == 1 && set_random_serial(x) && X509_gmtime_adj(X509_getm_notBefore(x), -kBackdateSeconds) &&
      X509_gmtime_adj(X509_getm_notAfter(x), valid_days * kSecondsPerDay) && X509_set_pubkey(x, key) == 1 &&
      X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("pacer test"), -1,
                                 -1, 0) == 1 &&
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(hosts[0].c_str()),
                                 -1, -1, 0) == 1 &&
      X509_set_issuer_name(x, name) == 1 && add_extension(x, NID_subject_alt_name, subject_alt_names(hosts)) &&
      add_extension(x, NID_basic_constraints, "critical,CA:FALSE") &&
      add_extension(x, NID_ext_key_usage, "serverAuth,clientAuth") && add_extension(x, NID_subject_key_identifier, "hash") &&
      X509_sign(x, key, EVP_sha256()) > 0;
  if (!ok) return runtime_error(take_openssl_error("cannot build the certificate"));
  return cert;
}

}  // namespace

Result<net::PemPair> make_certificate(const std::vector<std::string>& hosts, int valid_days) {
  std::unique_ptr<EVP_PKEY, PkeyFree> key(EVP_EC_gen("P-256"));
  if (!key) return runtime_error(take_openssl_error("cannot generate an EC P-256 key"));
  auto cert = build_certificate(key.get(), hosts, valid_days);
  if (!cert) return cert.error();
  auto cert_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, cert->get()); });
  if (!cert_pem) return cert_pem.error();
  auto key_pem =
      to_pem([&](BIO* b) { return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  if (!key_pem) return key_pem.error();
  return net::PemPair{std::move(*cert_pem), std::move(*key_pem)};
}

}  // namespace pacer::tls
