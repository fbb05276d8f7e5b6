// Fuzz target: --targets files (src/targets/). Byte 0: bit 0 gives a command-line
// URL to resolve against (else the file's first absolute URL is the origin); the
// rest is the file, parsed as text or JSON Lines by its first non-blank byte.
// Inputs holding '@' are skipped: a text target's @body names a file to read, and
// a fuzzer must not read /dev/stdin.
//
// Invariants beyond "no crash":
//   - parsing is deterministic;
//   - a refusal is kBadInput and its message starts with the file's name;
//   - every accepted target has a known method, a path starting with '/' with no
//     space or control character, header names that are tokens and values with no
//     CR, LF or NUL, a weight in 1..kMaxWeight and "FILE:LINE" as its place;
//   - the HTTP/1.1 bytes pacer builds for each accepted target are exactly one
//     complete request (engine::count_requests), unless its framing is refused.
#include <algorithm>
#include <string>

#include "cli/units.h"
#include "engine/drive/worker_script.h"
#include "fuzz_support.h"
#include "proto/http1_request.h"
#include "targets/target_file.h"

namespace {

bool clean_path(const std::string& path) {
  return !path.empty() && path[0] == '/' &&
         std::none_of(path.begin(), path.end(), [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; });
}

void check_target(const pacer::RequestTarget& t, const pacer::Config& config) {
  FUZZ_CHECK(t.method == "GET" || t.method == "HEAD" || t.method == "POST" || t.method == "PUT" ||
             t.method == "DELETE" || t.method == "PATCH" || t.method == "OPTIONS" || t.method == "TRACE" ||
             t.method == "CONNECT");
  FUZZ_CHECK(clean_path(t.path));
  FUZZ_CHECK(t.weight >= 1 && t.weight <= pacer::targets::kMaxWeight);
  FUZZ_CHECK(t.where.rfind("fuzz.txt:", 0) == 0);
  for (const pacer::Header& h : t.headers) {
    FUZZ_CHECK(!h.name.empty() && h.name.find_first_of(std::string(" :\r\n\0", 5)) == std::string::npos);
    FUZZ_CHECK(h.value.find_first_of(std::string("\r\n\0", 3)) == std::string::npos);
  }
  const pacer::RequestTarget sent = pacer::proto::with_command_line(config, t);
  if (!pacer::targets::check_target_framing(sent, false)) return;
  // CONNECT's request target is an authority, which llhttp wants; pacer sends a path.
  if (t.method == "CONNECT") return;
  const auto batch = pacer::engine::count_requests(pacer::proto::build_request(config, sent));
  FUZZ_CHECK(batch.ok() && batch->count == 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (text.find('@') != std::string_view::npos) return 0;
  pacer::targets::TargetSource source;
  source.name = "fuzz.txt";
  source.body_dir = "/nonexistent-pacer-fuzz";
  source.max_body_bytes = 1 << 16;
  pacer::Config config;
  config.target = *pacer::cli::parse_url("http://127.0.0.1:8080/base/page");
  if ((data[0] & 1) != 0) source.base = config.target;
  const auto first = pacer::targets::parse_targets(text, source);
  const auto second = pacer::targets::parse_targets(text, source);
  FUZZ_CHECK(first.ok() == second.ok());
  if (!first) {
    FUZZ_CHECK(first.error().kind == pacer::ErrorKind::kBadInput);
    FUZZ_CHECK(first.error().message.rfind("fuzz.txt", 0) == 0);
    FUZZ_CHECK(second.error().message == first.error().message);
    return 0;
  }
  FUZZ_CHECK(!first->targets.empty() && first->targets.size() <= pacer::targets::kMaxTargets);
  FUZZ_CHECK(first->targets.size() == second->targets.size());
  config.target = first->origin;
  for (const pacer::RequestTarget& t : first->targets) check_target(t, config);
  return 0;
}
