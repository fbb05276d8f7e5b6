// The TLS module's interface: the one header of src/tls/ the rest of pacer
// includes. Everything that calls OpenSSL (TLS over TCP for https:// URLs, HTTPS
// proxies and `pacer serve --tls`; `pacer cert`'s certificates) is built into a
// module of its own, pacer-tls.so beside the binary, loaded by the first run that
// needs it (net/tls_module.h): a plain-HTTP run maps neither libssl nor
// libcrypto, about 1.7 MB of resident memory (issue 46).
//
// Nothing here names an OpenSSL type. The binary holds these objects through
// net::TlsContext, net::TlsSessionCache and net::TlsStream and destroys them
// through their virtual destructors. The binary and the module come from one
// build: pacer_tls_module refuses a caller whose ModuleAbi differs.
//
// Thread: Module's calls are made on the main thread before workers start (also
// `pacer cert` and --version); a Context is then only read, by any thread; each
// Link and Sessions belongs to one connection's or worker's thread.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "net/io_result.h"
#include "net/self_signed.h"
#include "net/tls_options.h"

namespace pacer::tls {

// What the binary reads of a context without calling into the module.
struct ContextFacts {
  bool is_client = true;
  std::string server_name;  // client: the name sent as SNI (the URL's host, or --sni)
  bool sends_sni = false;   // only for a name, not an address literal, and not with --no-sni
  bool resumes_sessions = false;
};

// One worker's resumable sessions (client side): see net::TlsSessionCache.
class Sessions {
 public:
  virtual ~Sessions() = default;
  virtual std::size_t size() const = 0;
};

class Context;

// One TLS connection over a non-blocking socket: see net::TlsStream, which
// forwards to it. Kept after close(): the failure stays for describe_failure.
class Link {
 public:
  virtual ~Link() = default;
  // `context` is one of this module's (any of them: a link is reused across
  // origins). False if the library cannot allocate.
  virtual bool start_client(const Context& context, int fd, Sessions* sessions) = 0;
  virtual bool start_server(const Context& context, int fd) = 0;
  virtual net::IoStatus handshake() = 0;
  virtual net::IoResult read(char* buffer, std::size_t length) = 0;
  virtual net::IoResult write(const char* data, std::size_t length) = 0;
  virtual TimeNs receive_stamp() const = 0;
  virtual bool drained() const = 0;
  virtual void close() = 0;
  virtual bool active() const = 0;
  virtual bool established() const = 0;
  virtual bool resumed() const = 0;
  virtual std::string_view alpn() const = 0;
  virtual std::string_view protocol() const = 0;
  virtual std::string_view cipher() const = 0;
  virtual void describe_failure(std::span<char> out) const = 0;
};

// A run's (or a server's) TLS configuration, read-only once made.
class Context {
 public:
  virtual ~Context() = default;
  const ContextFacts& facts() const { return facts_; }
  virtual std::unique_ptr<Link> link() const = 0;
  virtual std::unique_ptr<Sessions> sessions() const = 0;

 protected:
  explicit Context(ContextFacts facts) : facts_(std::move(facts)) {}

 private:
  ContextFacts facts_;
};

class Module {
 public:
  // Setup errors are kBadInput naming the flag and the file at fault (exit 2).
  virtual Result<std::unique_ptr<Context>> client(const net::TlsClientOptions& options) const = 0;
  virtual Result<std::unique_ptr<Context>> server(const std::string& cert_file, const std::string& key_file) const = 0;
  // An EC P-256 key and a certificate naming `hosts` (net/self_signed.h).
  virtual Result<net::PemPair> self_signed(const std::vector<std::string>& hosts, int valid_days) const = 0;
  // The library the module runs with, as `pacer --version` prints it: "OpenSSL/3.0.17".
  virtual std::string library_versions() const = 0;

 protected:
  ~Module() = default;
};

// What the binary and the module must agree on to share these types.
struct ModuleAbi {
  int interface = 1;  // raised when Module, Context, Link or Sessions changes
  std::size_t options = sizeof(net::TlsClientOptions);
  std::size_t facts = sizeof(ContextFacts);
  std::size_t result = sizeof(net::IoResult);
  std::size_t pem = sizeof(net::PemPair);
  std::size_t error = sizeof(Error);
  bool operator==(const ModuleAbi&) const = default;
};

// The module's one exported symbol: its Module, or null when `version` (the
// caller's PACER_VERSION) or `abi` differ from the module's own.
inline constexpr const char* kModuleEntry = "pacer_tls_module";
using ModuleEntry = const Module* (*)(const char* version, const ModuleAbi* abi);

}  // namespace pacer::tls
