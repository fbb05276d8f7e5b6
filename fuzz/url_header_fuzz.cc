// Fuzz target: the URL and the -H header option. The input is given to
// cli::parse_url, to `pacer -- INPUT` and to `pacer -H INPUT http://127.0.0.1:8080/`.
//
// Invariants beyond "no crash":
//   - an accepted URL has scheme http or https, a host, a port in 1..65535 (the
//     scheme's default when none was given), a path starting with '/', and no
//     space or control character anywhere (it goes on the wire as is);
//   - the URL pacer rebuilds from those parts parses back to the same parts;
//   - `pacer -- URL` accepts exactly the URLs parse_url accepts, with the same target;
//   - an accepted header has a non-empty token name and no CR, LF or NUL in its
//     name or value; a refused one gives a message naming -H;
//   - the proxy's inputs (issue 33): an accepted proxy URL has a host and a port,
//     and its shown() form parses back to them; NO_PROXY matching and --bind lists
//     never crash (an accepted list is 1..kMaxBindAddresses addresses of one
//     family); a CONNECT reply parsed as done has a status of three digits and a
//     length within the input that ends with its blank line;
//   - `--cookie INPUT` accepted gives one Cookie header with no CR, LF or NUL; the
//     input as a Set-Cookie header keeps a cookie jar within its caps, and the
//     Cookie header it builds holds no CR, LF or NUL (the cookie jar, issue 33).
#include <algorithm>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/units.h"
#include "cookie/cookie_jar.h"
#include "fuzz_support.h"
#include "net/bind_list.h"
#include "proxy/connect_tunnel.h"
#include "proxy/no_proxy.h"
#include "proxy/proxy_url.h"

namespace {

bool clean(std::string_view text) {
  return std::none_of(text.begin(), text.end(),
                      [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == '\x7f'; });
}

bool is_tchar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

void check_url(std::string_view text) {
  const auto target = pacer::cli::parse_url(text);
  const pacer::fuzz::StdinText no_stdin("");
  // `--` first: TEXT is the URL even when it looks like an option or a command.
  const auto invocation = pacer::cli::parse({"--", std::string(text)}, no_stdin.get());
  FUZZ_CHECK(target.ok() == invocation.ok());
  if (!target) {
    FUZZ_CHECK(!target.error().message.empty());
    return;
  }
  FUZZ_CHECK(target->scheme == "http" || target->scheme == "https");
  FUZZ_CHECK(target->port != 0);
  FUZZ_CHECK(target->has_explicit_port || target->port == (target->is_tls() ? 443 : 80));
  FUZZ_CHECK(!target->path.empty() && target->path[0] == '/');
  FUZZ_CHECK(clean(target->host) && clean(target->path) && clean(target->host_header()));

  std::string rebuilt = target->scheme + "://";
  rebuilt += target->host.find(':') != std::string::npos ? "[" + target->host + "]" : target->host;
  if (target->has_explicit_port) rebuilt += ":" + std::to_string(target->port);
  rebuilt += target->path;
  const auto again = pacer::cli::parse_url(rebuilt);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->scheme == target->scheme && again->host == target->host && again->port == target->port &&
             again->path == target->path && again->has_explicit_port == target->has_explicit_port);

  FUZZ_CHECK(invocation->command == pacer::cli::Command::kRun);
  {
    const pacer::Target& t = invocation->run.target;
    FUZZ_CHECK(t.scheme == target->scheme && t.host == target->host && t.port == target->port && t.path == target->path);
  }
}

void check_header(std::string_view text) {
  const pacer::fuzz::StdinText no_stdin("");
  const auto invocation = pacer::cli::parse({"-H", std::string(text), "http://127.0.0.1:8080/"}, no_stdin.get());
  if (!invocation) {
    FUZZ_CHECK(invocation.error().message.find("-H") != std::string::npos);
    return;
  }
  FUZZ_CHECK(invocation->run.headers.size() == 1);
  const pacer::Header& h = invocation->run.headers[0];
  FUZZ_CHECK(!h.name.empty() && std::all_of(h.name.begin(), h.name.end(), is_tchar));
  FUZZ_CHECK(h.value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
}

void check_proxy_inputs(std::string_view text) {
  if (const auto url = pacer::proxy::parse_proxy_url(text)) {
    FUZZ_CHECK(!url->host.empty() && url->port != 0);
    const auto again = pacer::proxy::parse_proxy_url(url->shown());
    FUZZ_CHECK(again.ok() && again->host == url->host && again->port == url->port);
  }
  (void)pacer::proxy::no_proxy_matches(text, "www.example.com");
  (void)pacer::proxy::no_proxy_matches(text, "10.1.2.3");
  (void)pacer::proxy::no_proxy_matches("example.com, 10.0.0.0/8, fd00::/16", text);
  if (const auto list = pacer::net::parse_bind_list(text)) {
    FUZZ_CHECK(!list->empty() && list->size() <= pacer::net::kMaxBindAddresses);
    for (const auto& a : *list) FUZZ_CHECK(a.family() == list->front().family());
  }
  const pacer::proxy::ConnectReply reply = pacer::proxy::parse_connect_reply(text);
  if (reply.state == pacer::proxy::ConnectReply::State::kDone) {
    FUZZ_CHECK(reply.status >= 100 && reply.status <= 999);
    FUZZ_CHECK(reply.header_bytes >= 14 && reply.header_bytes <= text.size());
    FUZZ_CHECK(text.substr(0, reply.header_bytes).ends_with("\n\n") ||
               text.substr(0, reply.header_bytes).ends_with("\r\n\r\n"));
  }
}

void check_cookie(std::string_view text) {
  const pacer::fuzz::StdinText no_stdin("");
  if (text.empty() || text.front() != '@') {  // @FILE would read a file
    const auto invocation = pacer::cli::parse({"--cookie", std::string(text), "http://127.0.0.1:8080/"}, no_stdin.get());
    if (invocation) {
      FUZZ_CHECK(invocation->run.headers.size() == 1 && invocation->run.headers[0].name == "Cookie");
      FUZZ_CHECK(invocation->run.headers[0].value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
    } else {
      FUZZ_CHECK(invocation.error().message.find("--cookie") != std::string::npos);
    }
  }
  pacer::cookie::CookieJar jar;
  const pacer::cookie::Origin origin{"www.example.com", "/a/b", true};
  // Each line a Set-Cookie header, received at a fixed time.
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    (void)jar.store(rest.substr(0, end), origin, 1'700'000'000);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  FUZZ_CHECK(jar.size() <= pacer::cookie::CookieJar::kMaxCookies);
  std::string header;
  jar.append_header(header, origin, 1'700'000'000);
  FUZZ_CHECK(header.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
  std::int64_t unix_s = 0;
  (void)pacer::cookie::parse_cookie_date(text, unix_s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_url(text);
  check_header(text);
  check_proxy_inputs(text);
  check_cookie(text);
  return 0;
}
