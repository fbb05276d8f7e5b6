// pacer-docgen: writes pacer's man pages and shell completions into a directory,
// generated from the help texts `pacer --help` prints (cli/usage.cc), so the
// three never disagree. Run by the build (CMake's pacer_docs target); not installed.
// Usage: pacer-docgen OUTPUT_DIR
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "docgen/completion.h"
#include "docgen/help_text.h"
#include "docgen/man_page.h"

#ifndef PACER_VERSION
#define PACER_VERSION "0.0.0"
#endif
#ifndef PACER_MODULE_INSTALL_DIR
#define PACER_MODULE_INSTALL_DIR "/usr/lib/pacer"
#endif

namespace {

using pacer::docgen::HelpPage;
using pacer::docgen::ManPage;

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) std::fprintf(stderr, "pacer-docgen: cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

const char* kRunDescription =
    ".B pacer\n"
    "sends HTTP/1.1, HTTP/2 or HTTP/3 requests to\n.I URL\n"
    "over a number of connections, either each sending its next request when the\n"
    "previous response completes (the closed loop, as wrk) or on a schedule whatever\n"
    "the server does (the open model,\n.BR \\-R ),\n"
    "and reports latency, throughput, errors by class and status codes. A request\n"
    "past\n.B \\-\\-timeout\n"
    "is cancelled and kept in the latency figures as a lower bound, never dropped.\n"
    "Options may come before or after the URL; short options take their value\n"
    "attached (\\fB\\-c100\\fR) or separated (\\fB\\-c 100\\fR).\n";

std::string environment_section() {
  return ".TP\n.B PACER_IO\n"
         "\\fBuring\\fR or \\fBepoll\\fR: the I/O engine \\fB\\-\\-io auto\\fR means.\n"
         ".TP\n.B PACER_HTTP3_MODULE\n"
         "the HTTP/3 module to load for \\fB\\-\\-http3\\fR instead of the installed one.\n"
         ".TP\n.B PACER_TLS_MODULE\n"
         "the TLS module to load for HTTPS, \\fBpacer cert\\fR and \\fB\\-\\-version\\fR instead of the installed one.\n"
         ".TP\n.B NO_COLOR\n"
         "no colour in the live view.\n"
         ".TP\n.B TERM\n"
         "\\fBdumb\\fR: no live view, plain progress lines (as \\fB\\-\\-plain\\fR).\n";
}

std::string files_section() {
  return std::string(".TP\n.I ") + pacer::docgen::roff_escape(PACER_MODULE_INSTALL_DIR) +
         "/pacer\\-http3.so\n"
         "the HTTP/3 module (QUIC: ngtcp2, nghttp3, GnuTLS), loaded only by \\fB\\-\\-http3\\fR runs; looked for\n"
         "beside the binary first, then here (relative to the binary's directory).\n"
         ".TP\n.I " + pacer::docgen::roff_escape(PACER_MODULE_INSTALL_DIR) + "/pacer\\-tls.so\n"
         "the TLS module (OpenSSL), loaded only by runs that use TLS over TCP (https:// targets and proxies,\n"
         "\\fBpacer serve \\-\\-tls\\fR), \\fBpacer cert\\fR and \\fB\\-\\-version\\fR; looked for as the HTTP/3 module is.\n"
         ".TP\n.I /usr/share/doc/pacer/\n"
         "the documentation: the README, the guides (docs/) and the example scripts.\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: pacer-docgen OUTPUT_DIR\n", stderr);
    return 2;
  }
  namespace d = pacer::docgen;
  namespace cli = pacer::cli;
  const std::string dir = argv[1];
  const HelpPage run = d::parse_help(cli::usage());
  const HelpPage serve = d::parse_help(cli::serve_usage());
  const HelpPage merge = d::parse_help(cli::merge_usage());
  const HelpPage cert = d::parse_help(cli::cert_usage());
  const HelpPage report = d::parse_help(cli::report_usage());

  const std::vector<std::string> sub_pages = {"pacer-serve(1)", "pacer-merge(1)", "pacer-report(1)", "pacer-cert(1)"};
  bool ok = true;
  ManPage main_page{"pacer", "an HTTP load generator with wrk's command line and honest numbers", PACER_VERSION,
                    kRunDescription, {{"ENVIRONMENT", environment_section()}, {"FILES", files_section()}}, sub_pages};
  ok &= write_file(dir + "/pacer.1", d::man_page(run, main_page));
  const std::vector<std::string> see_pacer = {"pacer(1)"};
  const struct {
    const char* name;
    const char* summary;
    const HelpPage* help;
  } subs[] = {{"pacer-serve", "a fast HTTP/1.1 test server to point pacer at", &serve},
              {"pacer-merge", "combine the JSON reports of a test's shards into one", &merge},
              {"pacer-report", "draw pacer's JSON reports as one HTML page, or compare two", &report},
              {"pacer-cert", "write a throwaway self-signed certificate and key", &cert}};
  for (const auto& sub : subs) {
    ManPage page{sub.name, sub.summary, PACER_VERSION, "", {}, see_pacer};
    ok &= write_file(dir + "/" + sub.name + ".1", d::man_page(*sub.help, page));
  }

  std::vector<d::CompletionCommand> commands = {
      {"", d::options_of(run), d::Positional::kRunTarget},
      {"serve", d::options_of(serve), d::Positional::kNone},
      {"demo", d::options_of(run), d::Positional::kNone},
      {"merge", d::options_of(merge), d::Positional::kFiles},
      {"cert", d::options_of(cert), d::Positional::kNone},
      {"report", d::options_of(report), d::Positional::kFiles},
  };
  // A command the synopsis names that this table lacks still completes by name.
  for (const std::string& name : d::commands_of(run)) {
    bool known = false;
    for (const d::CompletionCommand& c : commands) known = known || c.name == name;
    if (!known) commands.push_back({name, {}, d::Positional::kFiles});
  }
  ok &= write_file(dir + "/pacer.bash", d::bash_completion(commands));
  ok &= write_file(dir + "/_pacer", d::zsh_completion(commands));
  return ok ? 0 : 1;
}
