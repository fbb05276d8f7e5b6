// Fuzz target: how the Lua script loader and its callers handle what scripts
// return and set. The input is decoded into a small wrk script made only of
// literal values (no loops, no os/io calls): it sets wrk.* fields (method,
// path, headers, body, init, request, ...) to those values and defines
// setup/init/request/response/delay/done hooks that return or pass them. The
// script then goes through ScriptHost::load, setup (one thread, so init and the
// static request built by wrk.format), request(), response(), delay() and done().
//
// Encoding: statements until the input ends (at most 16), each an opcode byte
// and its values; a value is a tag byte (nil, true, false, small integer, a
// double from 8 bytes, a string of up to 63 bytes, an array or a keyed table
// of values, a function returning a value) and its bytes; tables nest 3 deep.
//
// Invariants beyond "no crash" (UBSan also catches a number cast out of range):
//   - every failure is an error with a message (Lua's, or pacer's naming the
//     hook), never an abort or exception;
//   - delay() is never negative; request() that succeeds returned a string.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "fuzz_support.h"
#include "net/address.h"
#include "report/run_report.h"
#include "script/script_host.h"
#include "script/thread_script.h"

namespace {

using pacer::fuzz::Reader;

void value(Reader& in, int depth, std::string& out);

void string_literal(std::string_view bytes, std::string& out) {
  out += '"';
  for (char c : bytes) out += "\\" + std::to_string(static_cast<unsigned char>(c));
  out += '"';
}

void table(Reader& in, int depth, bool keyed, std::string& out) {
  const int n = in.byte() % 6;
  out += '{';
  for (int i = 0; i < n; ++i) {
    if (keyed) {
      out += '[';
      value(in, depth + 1, out);
      out += "]=";
    }
    value(in, depth + 1, out);
    out += ',';
  }
  out += '}';
}

void value(Reader& in, int depth, std::string& out) {
  const int tag = in.byte() % 9;
  if (depth >= 3 && tag >= 6) {
    out += "nil";
    return;
  }
  switch (tag) {
    case 0: out += "nil"; break;
    case 1: out += "true"; break;
    case 2: out += "false"; break;
    case 3: out += "(" + std::to_string(static_cast<std::int8_t>(in.byte())) + ")"; break;
    case 4: {
      double d = 0;
      const std::string_view raw = in.bytes(sizeof d);
      std::memcpy(&d, raw.data(), raw.size());
      char text[64];
      if (std::isnan(d)) {
        std::snprintf(text, sizeof text, "(0/0)");
      } else if (std::isinf(d)) {
        std::snprintf(text, sizeof text, d > 0 ? "(1/0)" : "(-1/0)");
      } else {
        std::snprintf(text, sizeof text, "(%.17g)", d);
      }
      out += text;
      break;
    }
    case 5: string_literal(in.bytes(in.byte() % 64), out); break;
    case 6: table(in, depth, false, out); break;
    case 7: table(in, depth, true, out); break;
    default:
      out += "function() return ";
      value(in, depth + 1, out);
      out += " end";
      break;
  }
}

constexpr const char* kFields[] = {"method", "path", "headers", "body", "scheme", "host",
                                   "port",   "init", "request", "format", "thread"};

std::string script_from(Reader& in) {
  std::string s;
  const auto v = [&] {
    value(in, 0, s);
  };
  for (int statement = 0; statement < 16 && !in.empty(); ++statement) {
    switch (in.byte() % 10) {
      case 0: s += std::string("wrk.") + kFields[in.byte() % std::size(kFields)] + " = "; v(); break;
      case 1: s += "function request() return "; v(); s += " end"; break;
      case 2:
        s += "function request() return wrk.format(";
        v(); s += ", "; v(); s += ", "; v(); s += ", "; v();
        s += ") end";
        break;
      case 3: s += "function delay() return "; v(); s += " end"; break;
      case 4: s += "function response(status, headers, body) return "; v(); s += " end"; break;
      case 5: s += "function init(args) wrk.path = "; v(); s += " end"; break;
      case 6: s += "function setup(thread) thread:set("; v(); s += ", "; v(); s += ") end"; break;
      case 7: s += "function done(summary, latency, requests) return latency:percentile("; v(); s += "), summary["; v(); s += "] end"; break;
      case 8: s += "function setup(thread) thread.addr = "; v(); s += " end"; break;
      default: s += "local _ = wrk.format("; v(); s += ", "; v(); s += ", "; v(); s += ", "; v(); s += ")"; break;
    }
    s += '\n';
  }
  return s;
}

// One file per process, rewritten for each input and removed at exit.
struct ScriptFile {
  std::string path = "/tmp/pacer_fuzz_script_" + std::to_string(::getpid()) + ".lua";
  ~ScriptFile() { std::remove(path.c_str()); }
};

const std::string& script_path() {
  static const ScriptFile file;
  return file.path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  Reader in(data, size);
  const std::string script = script_from(in);
  if (std::getenv("PACER_FUZZ_PRINT") != nullptr) std::fprintf(stderr, "%s", script.c_str());
  std::ofstream(script_path(), std::ios::trunc) << script;

  pacer::Config config;
  config.target.url = "http://127.0.0.1:8080/";
  config.target.scheme = "http";
  config.target.host = "127.0.0.1";
  config.target.port = 8080;
  config.threads = 1;
  config.connections = 1;
  config.script_path = script_path();
  auto host = pacer::script::ScriptHost::load(config);
  if (!host) {
    FUZZ_CHECK(!host.error().message.empty());
    return 0;
  }
  static const pacer::net::Address address = pacer::net::resolve("127.0.0.1", 8080).value().front();
  if (auto set = (*host)->setup(1, address); !set) {
    FUZZ_CHECK(!set.error().message.empty());
    return 0;
  }
  pacer::script::ThreadScript& thread = (*host)->thread(0);
  const int connection = thread.new_connection_table();
  if (thread.has_request()) {
    std::string out;
    if (auto r = thread.request(connection, out); !r) FUZZ_CHECK(!r.error().message.empty());
  }
  if (thread.has_response()) {
    constexpr std::string_view fields("Content-Type\0text/plain\0X\0\0", 26);
    if (auto r = thread.response(200, fields, "body", connection); !r) FUZZ_CHECK(!r.error().message.empty());
  }
  if (thread.has_delay()) {
    const auto d = thread.delay();
    if (d) FUZZ_CHECK(*d >= 0);
    else FUZZ_CHECK(!d.error().message.empty());
  }
  const auto done = (*host)->done(pacer::report::RunReport{});
  if (!done) FUZZ_CHECK(!done.error().message.empty());
  return 0;
}
