// pacer [options] URL and pacer demo: options, defaults, checks (src/cli/cli.h).
#include "cli/cli.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "../support/cli_args.h"

#include <limits>
#include <sstream>

namespace pacer::cli {
namespace {

using pacer::testing::Args;

using pacer::testing::parse_args;

Config run_config(const Args& args, const std::string& stdin_text = "") {
  auto parsed = parse_args(args, stdin_text);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  if (!parsed.ok()) return {};
  EXPECT_EQ(parsed->command, Command::kRun);
  return parsed->run;
}

std::string error_of(const Args& args, ErrorKind kind = ErrorKind::kBadArgument) {
  auto parsed = parse_args(args);
  EXPECT_FALSE(parsed.ok()) << "accepted";
  if (parsed.ok()) return {};
  EXPECT_EQ(parsed.error().kind, kind) << parsed.error().message;
  return parsed.error().message;
}

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.rfind(prefix, 0) == 0;
}

// A file in the test's temporary directory, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& bytes) {
    path_ = ::testing::TempDir() + "pacer_cli_body_XXXXXX";
    const int fd = ::mkstemp(path_.data());
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    ::close(fd);
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(Cli, UrlAloneGetsWrkDefaults) {
  const Config config = run_config({"http://127.0.0.1:8080/"});
  EXPECT_EQ(config.target.host, "127.0.0.1");
  EXPECT_EQ(config.target.port, 8080);
  EXPECT_EQ(config.threads, 2);
  EXPECT_EQ(config.connections, 10);
  EXPECT_EQ(config.duration_ns, 10 * kNsPerS);
  EXPECT_FALSE(config.duration_given);
  EXPECT_EQ(config.timeout_ns, 2 * kNsPerS);
  EXPECT_EQ(config.warmup_ns, 0);
  EXPECT_FALSE(config.request_count.has_value());
  EXPECT_EQ(config.method, "GET");
  EXPECT_TRUE(config.headers.empty());
  EXPECT_FALSE(config.body.has_value());
  EXPECT_TRUE(config.keep_alive);
  EXPECT_FALSE(config.print_latency);
  EXPECT_TRUE(config.record_timeouts);
}

TEST(Cli, AttachedShortOptionValueIsAccepted) {
  const Config config = run_config({"-t4", "-c100", "-d10s", "-n5", "http://h/"});
  EXPECT_EQ(config.threads, 4);
  EXPECT_EQ(config.connections, 100);
  EXPECT_EQ(config.duration_ns, 10 * kNsPerS);
  EXPECT_TRUE(config.duration_given);
  EXPECT_EQ(config.request_count, 5u);
}

TEST(Cli, SeparatedShortOptionValueIsAccepted) {
  const Config config = run_config({"-t", "4", "-c", "100", "-d", "3s", "http://h/"});
  EXPECT_EQ(config.threads, 4);
  EXPECT_EQ(config.connections, 100);
  EXPECT_EQ(config.duration_ns, 3 * kNsPerS);
}

TEST(Cli, LongOptionAcceptsEqualsAndSeparatedValue) {
  const Config config = run_config({"--threads=3", "--connections", "30", "--duration=1m",
                                    "--timeout", "500ms", "http://h/"});
  EXPECT_EQ(config.threads, 3);
  EXPECT_EQ(config.connections, 30);
  EXPECT_EQ(config.duration_ns, 60 * kNsPerS);
  EXPECT_EQ(config.timeout_ns, 500 * kNsPerMs);
}

TEST(Cli, LongOptionValueMayContainEquals) {
  const Config config = run_config({"--header=X-Q: a=b", "http://h/"});
  ASSERT_EQ(config.headers.size(), 1u);
  EXPECT_EQ(config.headers[0].value, "a=b");
}

TEST(Cli, OptionsMayComeAfterTheUrlAsInWrk) {
  const Config config = run_config({"http://h/", "-c", "20", "--latency"});
  EXPECT_EQ(config.connections, 20);
  EXPECT_TRUE(config.print_latency);
  EXPECT_EQ(config.target.host, "h");
}

TEST(Cli, DoubleDashEndsOptions) {
  EXPECT_EQ(run_config({"-c5", "--", "http://h/"}).connections, 5);
  EXPECT_EQ(error_of({"http://h/", "--", "--latency"}),
            "unexpected argument '--latency' (only one URL is allowed)");
}

TEST(Cli, LaterValueOfARepeatedOptionWins) {
  EXPECT_EQ(run_config({"-c", "5", "-c", "7", "http://h/"}).connections, 7);
}

TEST(Cli, CountsAcceptSiSuffixesAndWholeDecimals) {
  const Config config = run_config({"-n", "1.5k", "-c", "0.5k", "-t", "1k", "http://h/"});
  EXPECT_EQ(config.request_count, 1500u);
  EXPECT_EQ(config.connections, 500);
  EXPECT_EQ(config.threads, 500);  // 1000 capped to the connections
  EXPECT_EQ(run_config({"-n", "2M", "http://h/"}).request_count, 2'000'000u);
  EXPECT_EQ(run_config({"-n", "1G", "http://h/"}).request_count, 1'000'000'000u);
}

TEST(Cli, DurationFlagsAcceptEveryUnit) {
  EXPECT_EQ(run_config({"-d", "1h", "http://h/"}).duration_ns, 3600 * kNsPerS);
  EXPECT_EQ(run_config({"-d", "2m", "http://h/"}).duration_ns, 120 * kNsPerS);
  EXPECT_EQ(run_config({"-d", "1.5s", "http://h/"}).duration_ns, 1500 * kNsPerMs);
  EXPECT_EQ(run_config({"-d", "15", "http://h/"}).duration_ns, 15 * kNsPerS);
  EXPECT_EQ(run_config({"--timeout", "250ms", "http://h/"}).timeout_ns, 250 * kNsPerMs);
  EXPECT_EQ(run_config({"--timeout", "800us", "http://h/"}).timeout_ns, 800 * kNsPerUs);
  EXPECT_EQ(run_config({"--warmup", "1.5s", "http://h/"}).warmup_ns, 1500 * kNsPerMs);
}

TEST(Cli, ThreadsAreCappedToConnections) {
  const Config config = run_config({"-t4", "-c2", "http://h/"});
  EXPECT_EQ(config.threads, 2);
  EXPECT_EQ(config.connections, 2);
}

TEST(Cli, RequestsWithoutDurationLeaveDurationNotGiven) {
  const Config config = run_config({"-n", "100", "http://h/"});
  EXPECT_EQ(config.request_count, 100u);
  EXPECT_FALSE(config.duration_given);
}

TEST(Cli, RequestsWithDurationKeepBoth) {
  const Config config = run_config({"-n", "100", "-d", "3s", "http://h/"});
  EXPECT_EQ(config.request_count, 100u);
  EXPECT_TRUE(config.duration_given);
  EXPECT_EQ(config.duration_ns, 3 * kNsPerS);
}

TEST(Cli, SwitchesSetTheirFields) {
  const Config config =
      run_config({"--latency", "--disable-keepalive", "--no-record-timeouts", "http://h/"});
  EXPECT_TRUE(config.print_latency);
  EXPECT_FALSE(config.keep_alive);
  EXPECT_FALSE(config.record_timeouts);
}

TEST(Cli, HeadersAreKeptInOrderWithValuesTrimmed) {
  const Config config = run_config(
      {"-H", "Accept: text/html", "--header", "X-Id:42", "-HX-Pad: \t padded \t", "-H",
       "X-Empty:", "http://h/"});
  ASSERT_EQ(config.headers.size(), 4u);
  EXPECT_EQ(config.headers[0].name, "Accept");
  EXPECT_EQ(config.headers[0].value, "text/html");
  EXPECT_EQ(config.headers[1].name, "X-Id");
  EXPECT_EQ(config.headers[1].value, "42");
  EXPECT_EQ(config.headers[2].name, "X-Pad");
  EXPECT_EQ(config.headers[2].value, "padded");
  EXPECT_EQ(config.headers[3].name, "X-Empty");
  EXPECT_EQ(config.headers[3].value, "");
}

TEST(Cli, HeaderWithoutColonIsRefused) {
  EXPECT_EQ(error_of({"-H", "Accept text/html", "http://h/"}),
            "-H: header 'Accept text/html' has no ':' (expected \"Name: value\")");
}

TEST(Cli, HeaderWithEmptyNameIsRefused) {
  EXPECT_EQ(error_of({"--header", ": v", "http://h/"}),
            "--header: header ': v' has an empty name");
}

TEST(Cli, HeaderNameThatIsNotATokenIsRefused) {
  EXPECT_EQ(error_of({"-H", "X Id: 1", "http://h/"}),
            "-H: header name 'X Id' is not a valid HTTP token");
}

TEST(Cli, HeaderWithCrOrLfIsRefused) {
  for (const char* header : {"X: a\r\nHost: evil", "X: a\nb", "X\r: a"}) {
    EXPECT_EQ(error_of({"-H", header, "http://h/"}),
              "-H: header contains CR, LF or NUL, which would break the request apart");
  }
}

TEST(Cli, MethodIsKeptAsTyped) {
  EXPECT_EQ(run_config({"-m", "PURGE", "http://h/"}).method, "PURGE");
  EXPECT_EQ(run_config({"--method=post", "http://h/"}).method, "post");
}

TEST(Cli, MethodThatIsNotATokenIsRefused) {
  EXPECT_TRUE(starts_with(error_of({"-m", "GE T", "http://h/"}),
                          "-m: method 'GE T' is not an HTTP token"));
  EXPECT_TRUE(starts_with(error_of({"--method", "", "http://h/"}),
                          "--method: method '' is not an HTTP token"));
}

TEST(Cli, LiteralBodyIsSentWithPost) {
  const Config config = run_config({"-b", "{\"a\":1}", "http://h/"});
  EXPECT_EQ(config.body, "{\"a\":1}");
  EXPECT_EQ(config.method, "POST");
}

TEST(Cli, ExplicitMethodWinsOverTheBodyDefaultInAnyOrder) {
  EXPECT_EQ(run_config({"-m", "PUT", "-b", "x", "http://h/"}).method, "PUT");
  EXPECT_EQ(run_config({"-b", "x", "-m", "GET", "http://h/"}).method, "GET");
}

TEST(Cli, EmptyBodyIsStillABody) {
  const Config config = run_config({"--body=", "http://h/"});
  EXPECT_EQ(config.body, "");
}

TEST(Cli, BodyFromFileIsReadByteForByte) {
  const std::string bytes("a\0b\r\n\xff\x80 end", 11);
  const TempFile file(bytes);
  const Config config = run_config({"-b", "@" + file.path(), "http://h/"});
  ASSERT_TRUE(config.body.has_value());
  EXPECT_EQ(config.body->size(), 11u);
  EXPECT_EQ(*config.body, bytes);
}

TEST(Cli, LargeBodyFileIsReadWhole) {
  std::string bytes(300 * 1024, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  const TempFile file(bytes);
  EXPECT_EQ(run_config({"--body", "@" + file.path(), "http://h/"}).body, bytes);
}

TEST(Cli, BodyFromStdinIsReadFromTheStream) {
  const std::string bytes("line1\n\0line2", 12);
  EXPECT_EQ(run_config({"-b", "@-", "http://h/"}, bytes).body, bytes);
}

TEST(Cli, DoubleAtBodyIsTheLiteralAtString) {
  EXPECT_EQ(run_config({"-b", "@@x", "http://h/"}).body, "@x");
  EXPECT_EQ(run_config({"-b", "@@", "http://h/"}).body, "@");
}

TEST(Cli, UnreadableBodyFileIsBadInputNamingFileAndReason) {
  EXPECT_EQ(error_of({"-b", "@/nonexistent/body.json", "http://h/"}, ErrorKind::kBadInput),
            "-b: cannot read body file '/nonexistent/body.json': No such file or directory");
  EXPECT_EQ(error_of({"--body=@/", "http://h/"}, ErrorKind::kBadInput),
            "--body: cannot read body file '/': Is a directory");
}

TEST(Cli, JsonBodyIsPostedWithJsonContentTypeAndAccept) {
  const Config config = run_config({"--json", "{\"a\":1}", "http://h/"});
  EXPECT_EQ(config.body, "{\"a\":1}");
  EXPECT_EQ(config.method, "POST");
  ASSERT_EQ(config.headers.size(), 2u);
  EXPECT_EQ(config.headers[0].name, "Content-Type");
  EXPECT_EQ(config.headers[0].value, "application/json");
  EXPECT_EQ(config.headers[1].name, "Accept");
  EXPECT_EQ(config.headers[1].value, "application/json");
}

TEST(Cli, JsonLeavesHeadersGivenWithDashHAndAMethodGivenWithDashM) {
  const Config config = run_config(
      {"-H", "content-type: application/vnd.api+json", "--json", "[]", "-m", "PUT", "http://h/"});
  EXPECT_EQ(config.method, "PUT");
  ASSERT_EQ(config.headers.size(), 2u);
  EXPECT_EQ(config.headers[0].value, "application/vnd.api+json");
  EXPECT_EQ(config.headers[1].name, "Accept");
  EXPECT_EQ(run_config({"--json", "{}", "-H", "Accept: */*", "http://h/"}).headers.size(), 2u);
}

TEST(Cli, JsonBodyComesFromAFileOrStdinLikeDashB) {
  const std::string bytes("{\"k\": \"\xc3\xa9\"}\n", 13);
  const TempFile file(bytes);
  EXPECT_EQ(run_config({"--json", "@" + file.path(), "http://h/"}).body, bytes);
  EXPECT_EQ(run_config({"--json", "@-", "http://h/"}, bytes).body, bytes);
  EXPECT_EQ(error_of({"--json", "@/nonexistent/b.json", "http://h/"}, ErrorKind::kBadInput),
            "--json: cannot read body file '/nonexistent/b.json': No such file or directory");
}

TEST(Cli, DashBAddsNoHeaderAndCannotBeCombinedWithJson) {
  EXPECT_TRUE(run_config({"-b", "{}", "http://h/"}).headers.empty());
  EXPECT_EQ(error_of({"-b", "x", "--json", "{}", "http://h/"}), "--json: the body was already given by -b; give it once");
  EXPECT_EQ(error_of({"--json", "{}", "--body", "x", "http://h/"}),
            "--body: the body was already given by --json; give it once");
}

TEST(Cli, AtSignAloneIsRefused) {
  EXPECT_TRUE(starts_with(error_of({"-b", "@", "http://h/"}), "-b: '@' needs a file name"));
}

TEST(Cli, UnknownOptionIsRefused) {
  EXPECT_EQ(error_of({"--foo", "http://h/"}), "unknown option '--foo' (see pacer --help)");
  EXPECT_EQ(error_of({"--foo=1", "http://h/"}), "unknown option '--foo' (see pacer --help)");
  EXPECT_EQ(error_of({"http://h/", "-X"}), "unknown option '-X' (see pacer --help)");
}

TEST(Cli, AbbreviatedLongOptionIsRefused) {
  EXPECT_EQ(error_of({"--conn", "5", "http://h/"}), "unknown option '--conn' (see pacer --help)");
}

TEST(Cli, SwitchGivenAValueIsRefused) {
  EXPECT_EQ(error_of({"--latency=yes", "http://h/"}), "--latency: takes no value");
}

TEST(Cli, MissingValueIsRefusedNamingTheFlag) {
  EXPECT_EQ(error_of({"http://h/", "-c"}), "-c: missing value (see pacer --help)");
  EXPECT_EQ(error_of({"http://h/", "--timeout"}), "--timeout: missing value (see pacer --help)");
}

TEST(Cli, NextArgumentIsTakenAsTheValueEvenIfItLooksLikeAFlag) {
  EXPECT_TRUE(starts_with(error_of({"-d", "--latency", "http://h/"}),
                          "-d: '--latency' is not a duration"));
}

TEST(Cli, NonNumericValuesAreRefusedNamingTheFlag) {
  EXPECT_TRUE(starts_with(error_of({"-c", "many", "http://h/"}), "-c: 'many' is not a count"));
  EXPECT_TRUE(starts_with(error_of({"-t", "x", "http://h/"}), "-t: 'x' is not a count"));
  EXPECT_TRUE(starts_with(error_of({"-n", "1.5", "http://h/"}), "-n: '1.5' is not a whole"));
  EXPECT_TRUE(starts_with(error_of({"-d", "soon", "http://h/"}), "-d: 'soon' is not a duration"));
  EXPECT_TRUE(starts_with(error_of({"--timeout=1x", "http://h/"}),
                          "--timeout: '1x' is not a duration"));
  EXPECT_TRUE(starts_with(error_of({"--warmup", "-1s", "http://h/"}),
                          "--warmup: '-1s' is not a duration"));
}

TEST(Cli, CountsBelowOneAreRefused) {
  EXPECT_EQ(error_of({"-c", "0", "http://h/"}), "-c: connections must be at least 1, got 0");
  EXPECT_EQ(error_of({"-t0", "http://h/"}), "-t: threads must be at least 1, got 0");
  EXPECT_EQ(error_of({"-n", "0", "http://h/"}), "-n: requests must be at least 1, got 0");
  EXPECT_EQ(error_of({"--connections=0k", "http://h/"}),
            "--connections: connections must be at least 1, got 0k");
}

TEST(Cli, CountsAboveIntRangeAreRefused) {
  EXPECT_EQ(error_of({"-c", "3G", "http://h/"}),
            "-c: connections must be at most 2147483647, got 3G");
  EXPECT_EQ(error_of({"-t", "3G", "http://h/"}),
            "-t: threads must be at most 2147483647, got 3G");
}

TEST(Cli, ZeroDurationAndTimeoutAreRefused) {
  EXPECT_EQ(error_of({"-d", "0", "http://h/"}), "-d: duration must be greater than 0, got 0");
  EXPECT_EQ(error_of({"--timeout", "0ms", "http://h/"}),
            "--timeout: timeout must be greater than 0, got 0ms");
}

TEST(Cli, ZeroWarmupIsAllowed) {
  EXPECT_EQ(run_config({"--warmup", "0", "http://h/"}).warmup_ns, 0);
}

TEST(Cli, WarmupComesBeforeTheDurationSoItMayBeLonger) {
  const Config config = run_config({"-d", "5s", "--warmup", "20s", "http://h/"});
  EXPECT_EQ(config.warmup_ns, 20 * kNsPerS);
  EXPECT_EQ(config.duration_ns, 5 * kNsPerS);
}

TEST(Cli, WarmupIsNotComparedWithADurationThatDoesNotApply) {
  const Config config = run_config({"-n", "1k", "--warmup", "20s", "http://h/"});
  EXPECT_EQ(config.warmup_ns, 20 * kNsPerS);
  EXPECT_FALSE(config.duration_given);
}

TEST(Cli, MissingUrlIsRefused) {
  EXPECT_EQ(error_of({}), "missing URL (usage: pacer [options] URL; see pacer --help)");
  EXPECT_EQ(error_of({"-c", "5"}), "missing URL (usage: pacer [options] URL; see pacer --help)");
}

TEST(Cli, ExtraPositionalArgumentIsRefused) {
  EXPECT_EQ(error_of({"http://a/", "http://b/"}),
            "unexpected argument 'http://b/' (only one URL is allowed)");
}

TEST(Cli, BadUrlIsRefused) {
  EXPECT_EQ(error_of({"-c", "5", "example.com"}),
            "URL 'example.com' has no scheme (expected http:// or https://)");
  EXPECT_EQ(error_of({"ftp://h/"}),
            "unsupported scheme 'ftp' in URL 'ftp://h/' (expected http or https)");
}

TEST(Cli, HttpsVerifiesAndResumesByDefault) {
  const Config config = run_config({"https://h/"});
  EXPECT_TRUE(config.target.is_tls());
  EXPECT_EQ(config.target.port, 443);
  EXPECT_TRUE(config.tls_verify);
  EXPECT_TRUE(config.tls_resume);
  EXPECT_TRUE(config.tls_ca_file.empty());
}

TEST(Cli, TlsFlagsAreStored) {
  const Config config = run_config({"-k", "--no-tls-resume", "--cacert", "/dev/null", "--cert", "/dev/null", "--key",
                                    "/dev/null", "https://h/"});
  EXPECT_FALSE(config.tls_verify);
  EXPECT_FALSE(config.tls_resume);
  EXPECT_EQ(config.tls_ca_file, "/dev/null");
  EXPECT_EQ(config.tls_cert_file, "/dev/null");
  EXPECT_EQ(config.tls_key_file, "/dev/null");
  EXPECT_FALSE(run_config({"--insecure", "https://h/"}).tls_verify);
}

TEST(Cli, CertWithoutKeyIsRefused) {
  EXPECT_EQ(error_of({"--cert", "/dev/null", "https://h/"}), "--cert needs --key too (the certificate's private key)");
  EXPECT_EQ(error_of({"--key", "/dev/null", "https://h/"}), "--key needs --cert too (the client certificate)");
}

TEST(Cli, UnreadableTlsFileIsRefusedByName) {
  EXPECT_EQ(error_of({"--cacert", "/nonexistent/ca.pem", "https://h/"}, ErrorKind::kBadInput),
            "--cacert: cannot read '/nonexistent/ca.pem': No such file or directory");
  EXPECT_EQ(error_of({"--key", "/nonexistent/k.pem", "--cert", "/dev/null", "https://h/"}, ErrorKind::kBadInput),
            "--key: cannot read '/nonexistent/k.pem': No such file or directory");
}

TEST(Cli, UrlIsParsedIntoTheTarget) {
  const Config config = run_config({"http://[::1]:8443/api?x=1#frag"});
  EXPECT_EQ(config.target.scheme, "http");
  EXPECT_EQ(config.target.host, "::1");
  EXPECT_EQ(config.target.port, 8443);
  EXPECT_EQ(config.target.path, "/api?x=1");
}

TEST(Cli, CommandNameAfterOptionsIsRefusedWithAHint) {
  EXPECT_EQ(error_of({"-c", "5", "demo"}), "'demo' must come first: pacer demo [options]");
}

TEST(Cli, HelpAnywhereGivesTheUsage) {
  for (const Args& args : {Args{"-h"}, Args{"--help"}, Args{"http://h/", "-c", "5", "--help"},
                           Args{"--foo", "-h"}, Args{"-c", "0", "-h"}, Args{"-h", "-c"}}) {
    auto parsed = parse_args(args);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->command, Command::kHelp);
    EXPECT_EQ(parsed->help_text, usage());
  }
}

TEST(Cli, HelpAfterDoubleDashIsAnArgument) {
  EXPECT_EQ(error_of({"--", "-h"}), "URL '-h' has no scheme (expected http:// or https://)");
}

TEST(Cli, HelpAsAnOptionValueIsNotHelp) {
  EXPECT_EQ(error_of({"http://h/", "-H", "--help"}),
            "-H: header '--help' has no ':' (expected \"Name: value\")");
}

TEST(Cli, VersionFlagGivesVersion) {
  for (const Args& args : {Args{"-v"}, Args{"--version"}, Args{"http://h/", "-v"}}) {
    auto parsed = parse_args(args);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->command, Command::kVersion);
  }
}

TEST(Cli, DemoRunsFiveSecondsByDefaultWithoutAUrl) {
  auto parsed = parse_args({"demo"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->command, Command::kDemo);
  EXPECT_EQ(parsed->run.duration_ns, 5 * kNsPerS);
  EXPECT_FALSE(parsed->run.duration_given);
  EXPECT_EQ(parsed->run.connections, 10);
  EXPECT_EQ(parsed->run.threads, 2);
}

TEST(Cli, DemoTakesTheRunOptions) {
  auto parsed = parse_args({"demo", "-d", "2s", "-c", "4", "-t8", "--latency", "-m", "PUT"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->command, Command::kDemo);
  EXPECT_EQ(parsed->run.duration_ns, 2 * kNsPerS);
  EXPECT_TRUE(parsed->run.duration_given);
  EXPECT_EQ(parsed->run.connections, 4);
  EXPECT_EQ(parsed->run.threads, 4);
  EXPECT_TRUE(parsed->run.print_latency);
  EXPECT_EQ(parsed->run.method, "PUT");
}

TEST(Cli, DemoRefusesAUrl) {
  EXPECT_EQ(error_of({"demo", "http://h/"}),
            "demo takes no URL; it runs against the built-in server (got 'http://h/')");
}

TEST(Cli, DemoHelpIsTheRunUsage) {
  auto parsed = parse_args({"demo", "--help"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->command, Command::kHelp);
  EXPECT_EQ(parsed->help_text, usage());
}

TEST(Cli, ConnectionsBeyondTheOpenFileLimitAreRefused) {
  const std::string message = error_of({"-c", "2147483647", "-t", "1", "http://h/"});
  EXPECT_TRUE(starts_with(message, "-c 2147483647 needs about 2147483683 open files")) << message;
}

TEST(CliLiveView, RefreshDefaultsToAbout100MillisecondsAndPlainIsOff) {
  const Config c = run_config({"http://127.0.0.1:8080/"});
  EXPECT_EQ(c.refresh_ns, 100 * kNsPerMs);
  EXPECT_FALSE(c.plain);
}

TEST(CliLiveView, RefreshAndPlainAreParsed) {
  const Config c = run_config({"--refresh", "250ms", "--plain", "http://127.0.0.1:8080/"});
  EXPECT_EQ(c.refresh_ns, 250 * kNsPerMs);
  EXPECT_TRUE(c.plain);
}

TEST(CliLiveView, RefreshOutsideTenMillisecondsToTenSecondsIsRefusedNamingTheFlag) {
  for (const char* bad : {"0", "5ms", "11s"}) {
    const std::string message = error_of({"--refresh", bad, "http://127.0.0.1:8080/"});
    EXPECT_TRUE(starts_with(message, "--refresh: refresh must be between 10ms and 10s")) << message;
  }
}

TEST(CliLiveView, RefreshThatIsNotADurationIsRefusedNamingTheFlag) {
  const std::string message = error_of({"--refresh", "soon", "http://127.0.0.1:8080/"});
  EXPECT_NE(message.find("--refresh"), std::string::npos) << message;
}

TEST(CliLiveView, PlainTakesNoValue) {
  const std::string message = error_of({"--plain=yes", "http://127.0.0.1:8080/"});
  EXPECT_NE(message.find("--plain"), std::string::npos) << message;
}

TEST(Cli, ScriptOptionTakesAFileAndWhatFollowsTheUrlGoesToTheScript) {
  const Config c = run_config({"-s", "x.lua", "http://127.0.0.1:8080/", "--", "a", "b"});
  EXPECT_EQ(c.script_path, "x.lua");
  EXPECT_EQ(c.script_args, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c.target.path, "/");
}

TEST(Cli, ScriptArgumentsMayFollowTheUrlWithoutDashDashAsInWrk) {
  const Config c = run_config({"--script=x.lua", "http://127.0.0.1:8080/", "one"});
  EXPECT_EQ(c.script_path, "x.lua");
  EXPECT_EQ(c.script_args, std::vector<std::string>{"one"});
}

TEST(Cli, ExtraArgumentsWithoutAScriptAreStillRefused) {
  const std::string message = error_of({"http://127.0.0.1:8080/", "--", "a"});
  EXPECT_NE(message.find("unexpected argument 'a'"), std::string::npos) << message;
}

TEST(Cli, AnEmptyScriptPathIsRefused) {
  const std::string message = error_of({"-s", "", "http://127.0.0.1:8080/"});
  EXPECT_NE(message.find("-s"), std::string::npos) << message;
}

}  // namespace
}  // namespace pacer::cli
