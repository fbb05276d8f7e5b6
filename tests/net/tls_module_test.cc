// The TLS module's seam (net/tls_module.h, tls/module.h): the unit tests link
// src/tls/ in, so tls_module() answers with that module without a file; the
// binary's handles stay small (a plain connection's TlsStream is one pointer).
#include "net/tls_module.h"

#include <gtest/gtest.h>

#include "net/tls_stream.h"

// The module's entry (tls/module.cc), linked into this binary.
extern "C" const pacer::tls::Module* pacer_tls_module(const char* version, const pacer::tls::ModuleAbi* abi);

namespace pacer::net {
namespace {

TEST(TlsModule, TheLinkedInModuleIsUsedAndNamesItsLibrary) {
  const auto module = tls_module();
  ASSERT_TRUE(module) << module.error().message;
  EXPECT_EQ((*module)->library_versions().rfind("OpenSSL/3", 0), 0u) << (*module)->library_versions();
  EXPECT_EQ(*tls_module(), *module) << "loaded once";
}

TEST(TlsModule, TheEntryRefusesAnotherBuild) {
  const tls::ModuleAbi ours;
  EXPECT_NE(pacer_tls_module(PACER_VERSION, &ours), nullptr);
  EXPECT_EQ(pacer_tls_module("0.0.0-other", &ours), nullptr);
  EXPECT_EQ(pacer_tls_module(PACER_VERSION, nullptr), nullptr);
  tls::ModuleAbi other;
  other.interface += 1;
  EXPECT_EQ(pacer_tls_module(PACER_VERSION, &other), nullptr);
  other = tls::ModuleAbi{};
  other.options += 8;  // another TlsClientOptions layout
  EXPECT_EQ(pacer_tls_module(PACER_VERSION, &other), nullptr);
}

TEST(TlsModule, APlainConnectionsStreamIsOnePointerAndInactive) {
  static_assert(sizeof(TlsStream) == sizeof(void*));
  const TlsStream plain;
  EXPECT_FALSE(plain.active());
  EXPECT_FALSE(plain.is_established());
  EXPECT_TRUE(plain.protocol().empty());
  EXPECT_TRUE(plain.cipher().empty());
  EXPECT_EQ(plain.receive_stamp(), 0);
  char reason[32];
  plain.describe_failure(reason);
  EXPECT_STREQ(reason, "TLS error");
  EXPECT_EQ(TlsSessionCache().size(), 0u);
}

}  // namespace
}  // namespace pacer::net
