// pacer serve [options] (src/cli/serve_options.h).
#include "cli/serve_options.h"

#include <gtest/gtest.h>

#include "../support/cli_args.h"

#include <sstream>

namespace pacer::cli {
namespace {

using pacer::testing::Args;

using pacer::testing::parse_args;

server::ServeConfig serve_config(const Args& args) {
  auto parsed = parse_args(args);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  if (!parsed.ok()) return {};
  EXPECT_EQ(parsed->command, Command::kServe);
  return parsed->serve;
}

std::string error_of(const Args& args) {
  auto parsed = parse_args(args);
  EXPECT_FALSE(parsed.ok()) << "accepted";
  if (parsed.ok()) return {};
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadArgument);
  return parsed.error().message;
}

TEST(ServeOptions, ServeAloneListensOnLocalhost8080WithTwoThreads) {
  const server::ServeConfig serve = serve_config({"serve"});
  EXPECT_EQ(serve.listen_host, "127.0.0.1");
  EXPECT_EQ(serve.listen_port, 8080);
  EXPECT_EQ(serve.threads, 2);
  EXPECT_LT(serve.freeze_at_ns, 0);
  EXPECT_EQ(serve.freeze_for_ns, 0);
  EXPECT_EQ(serve.log_arrivals_path, "");
}

TEST(ServeOptions, TlsTakesTheCertificateAndTheKey) {
  const server::ServeConfig serve =
      serve_config({"serve", "-t", "1", "--tls", "c.pem", "k.pem", "--listen", "127.0.0.1:0"});
  EXPECT_TRUE(serve.is_tls());
  EXPECT_EQ(serve.tls_cert_path, "c.pem");
  EXPECT_EQ(serve.tls_key_path, "k.pem");
  EXPECT_EQ(serve.threads, 1);
  EXPECT_EQ(serve.listen_port, 0);
  EXPECT_FALSE(serve_config({"serve"}).is_tls());
}

TEST(ServeOptions, TlsWithoutBothFilesIsRefused) {
  EXPECT_EQ(error_of({"serve", "--tls", "c.pem"}), "--tls: needs two files, the certificate and its key: --tls CERT KEY");
  EXPECT_EQ(error_of({"serve", "--tls"}), "--tls: needs two files, the certificate and its key: --tls CERT KEY");
}

TEST(ServeOptions, ListenAcceptsIpv4Address) {
  const server::ServeConfig serve = serve_config({"serve", "--listen", "0.0.0.0:9000"});
  EXPECT_EQ(serve.listen_host, "0.0.0.0");
  EXPECT_EQ(serve.listen_port, 9000);
}

TEST(ServeOptions, ListenAcceptsBracketedIpv6Address) {
  const server::ServeConfig serve = serve_config({"serve", "--listen=[::1]:8081"});
  EXPECT_EQ(serve.listen_host, "::1");
  EXPECT_EQ(serve.listen_port, 8081);
}

TEST(ServeOptions, ListenPortAloneMeansLocalhost) {
  const server::ServeConfig serve = serve_config({"serve", "--listen", ":9999"});
  EXPECT_EQ(serve.listen_host, "127.0.0.1");
  EXPECT_EQ(serve.listen_port, 9999);
}

TEST(ServeOptions, ListenPortZeroMeansAnyFreePort) {
  EXPECT_EQ(serve_config({"serve", "--listen", "127.0.0.1:0"}).listen_port, 0);
}

TEST(ServeOptions, ListenOnAUnixSocketTakesItsPathAndRefusesOneTooLong) {
  EXPECT_EQ(serve_config({"serve", "--listen", "unix:/tmp/pacer.sock"}).unix_path, "/tmp/pacer.sock");
  EXPECT_NE(error_of({"serve", "--listen", "unix:"}).find("a Unix socket path of 1 to 107 bytes"), std::string::npos);
  EXPECT_NE(error_of({"serve", "--listen", "unix:/" + std::string(200, 'x')}).find("--listen"), std::string::npos);
}

TEST(ServeOptions, MalformedListenAddressIsRefusedNamingTheFlag) {
  const std::string expected = " (expected 127.0.0.1:8080, [::1]:8080, :8080 or unix:PATH)";
  EXPECT_EQ(error_of({"serve", "--listen", "8080"}), "--listen: '8080' has no port" + expected);
  EXPECT_EQ(error_of({"serve", "--listen", "localhost:80"}),
            "--listen: 'localhost:80' has an invalid IPv4 address" + expected);
  EXPECT_EQ(error_of({"serve", "--listen", "::1:80"}),
            "--listen: '::1:80' needs brackets around IPv6" + expected);
  EXPECT_EQ(error_of({"serve", "--listen", "[::1]"}),
            "--listen: '[::1]' is not [IPv6]:PORT" + expected);
  EXPECT_EQ(error_of({"serve", "--listen", "[zz]:80"}),
            "--listen: '[zz]:80' has an invalid IPv6 address" + expected);
  EXPECT_EQ(error_of({"serve", "--listen", "1.2.3.4:70000"}),
            "--listen: '1.2.3.4:70000' has an invalid port (0 to 65535)" + expected);
  EXPECT_EQ(error_of({"serve", "--listen", ":"}),
            "--listen: ':' has an invalid port (0 to 65535)" + expected);
}

TEST(ServeOptions, ThreadsAcceptShortAndLongForms) {
  EXPECT_EQ(serve_config({"serve", "-t4"}).threads, 4);
  EXPECT_EQ(serve_config({"serve", "--threads", "8"}).threads, 8);
}

TEST(ServeOptions, ThreadsBelowOneAreRefused) {
  EXPECT_EQ(error_of({"serve", "-t", "0"}), "-t: threads must be at least 1, got 0");
  EXPECT_TRUE(error_of({"serve", "--threads=x"}).rfind("--threads: 'x' is not a count", 0) == 0);
}

TEST(ServeOptions, FreezeTakesBothTimes) {
  const server::ServeConfig serve =
      serve_config({"serve", "--freeze-at", "2s", "--freeze-for=500ms"});
  EXPECT_EQ(serve.freeze_at_ns, 2 * kNsPerS);
  EXPECT_EQ(serve.freeze_for_ns, 500 * kNsPerMs);
}

TEST(ServeOptions, FreezeMayStartAtTheFirstRequest) {
  EXPECT_EQ(serve_config({"serve", "--freeze-at", "0", "--freeze-for", "1s"}).freeze_at_ns, 0);
}

TEST(ServeOptions, FreezeAtWithoutFreezeForIsRefused) {
  EXPECT_EQ(error_of({"serve", "--freeze-at", "1s"}),
            "--freeze-at: needs --freeze-for too (how long to freeze)");
}

TEST(ServeOptions, FreezeForWithoutFreezeAtIsRefused) {
  EXPECT_EQ(error_of({"serve", "--freeze-for", "1s"}),
            "--freeze-for: needs --freeze-at too (when to freeze)");
}

TEST(ServeOptions, ZeroFreezeLengthIsRefused) {
  EXPECT_EQ(error_of({"serve", "--freeze-at", "1s", "--freeze-for", "0s"}),
            "--freeze-for: freeze length must be greater than 0, got 0s");
}

TEST(ServeOptions, BadFreezeTimeIsRefusedNamingTheFlag) {
  EXPECT_TRUE(error_of({"serve", "--freeze-at", "soon", "--freeze-for", "1s"})
                  .rfind("--freeze-at: 'soon' is not a duration", 0) == 0);
}

TEST(ServeOptions, ArrivalLogPathIsKept) {
  EXPECT_EQ(serve_config({"serve", "--log-arrivals", "/tmp/arrivals.log"}).log_arrivals_path,
            "/tmp/arrivals.log");
  EXPECT_EQ(error_of({"serve", "--log-arrivals="}), "--log-arrivals: missing file name");
}

TEST(ServeOptions, AnArrivalLogPathThatCannotBeWrittenIsRefusedAtOnce) {
  EXPECT_EQ(error_of({"serve", "--log-arrivals", "/"}), "--log-arrivals: cannot write '/': it is a directory");
}

TEST(ServeOptions, RunOptionsAreUnknownToServe) {
  EXPECT_EQ(error_of({"serve", "-c", "10"}), "unknown option '-c' (see pacer serve --help)");
  EXPECT_EQ(error_of({"serve", "--foo"}), "unknown option '--foo' (see pacer serve --help)");
}

TEST(ServeOptions, MissingValueIsRefused) {
  EXPECT_EQ(error_of({"serve", "--listen"}), "--listen: missing value (see pacer serve --help)");
}

TEST(ServeOptions, PositionalArgumentIsRefused) {
  EXPECT_EQ(error_of({"serve", "http://h/"}),
            "serve: unexpected argument 'http://h/' (see pacer serve --help)");
}

TEST(ServeOptions, HelpGivesTheServeUsageEvenAfterAMistake) {
  for (const Args& args : {Args{"serve", "-h"}, Args{"serve", "--bogus", "--help"}}) {
    auto parsed = parse_args(args);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->command, Command::kHelp);
    EXPECT_EQ(parsed->help_text, serve_usage());
  }
}

TEST(ServeOptions, ParseListenLeavesConfigUntouchedOnError) {
  server::ServeConfig serve;
  EXPECT_FALSE(parse_listen("nonsense", "--listen", serve).ok());
  EXPECT_EQ(serve.listen_host, "127.0.0.1");
  EXPECT_EQ(serve.listen_port, 8080);
}

}  // namespace
}  // namespace pacer::cli
