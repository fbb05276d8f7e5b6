// Micro-benchmarks for proto::ResponseParser: a typical keep-alive 200 response
// with a 100-byte body (what nginx and `pacer serve` send in bench/compare_*.sh),
// fed whole, split in two inside the headers, and pipelined 16 deep. A response
// repeated whole is matched by its known head; two alternating ones (nginx's Date
// header changes every second) measure llhttp with the learning of the head.
// Single-threaded; one parser per benchmark, as one per connection in the worker.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>

#include "proto/http1_parser.h"

namespace {

using pacer::proto::KnownHead;
using pacer::proto::ResponseParser;

std::string typical_response(const char* date = "Mon, 01 Jan 2024 00:00:00 GMT") {
  const std::string body(100, 'x');
  return "HTTP/1.1 200 OK\r\n"
         "Server: nginx/1.22.1\r\n"
         "Date: " + std::string(date) + "\r\n"
         "Content-Type: text/plain\r\n"
         "Content-Length: 100\r\n"
         "Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
         "Connection: keep-alive\r\n"
         "ETag: \"65920080-64\"\r\n"
         "Accept-Ranges: bytes\r\n"
         "\r\n" +
         body;
}

struct Completions {
  long count = 0;
};

void count_completion(void* context, int /*status_code*/, bool /*keep_alive*/) {
  ++static_cast<Completions*>(context)->count;
}

// Fails the benchmark (rather than measuring garbage) if a response was not counted.
bool check(benchmark::State& state, const Completions& done, long expected) {
  if (done.count == expected) return true;
  state.SkipWithError("parser did not complete every response");
  return false;
}

void BM_ParseResponseWhole(benchmark::State& state) {
  const std::string response = typical_response();
  Completions done;
  KnownHead known;
  ResponseParser parser(count_completion, &done, &known);
  for (auto _ : state) {
    parser.expect(false);
    if (!parser.feed(response.data(), response.size())) {
      state.SkipWithError(parser.error_reason());
      break;
    }
  }
  check(state, done, static_cast<long>(state.iterations()));
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<long>(response.size()));
}
BENCHMARK(BM_ParseResponseWhole);

// Every response's head differs from the one before: llhttp parses each.
void BM_ParseResponseHeadChanging(benchmark::State& state) {
  const std::string responses[2] = {typical_response(), typical_response("Mon, 01 Jan 2024 00:00:01 GMT")};
  Completions done;
  KnownHead known;
  ResponseParser parser(count_completion, &done, &known);
  std::size_t next = 0;
  for (auto _ : state) {
    const std::string& response = responses[next];
    next ^= 1;
    parser.expect(false);
    if (!parser.feed(response.data(), response.size())) {
      state.SkipWithError(parser.error_reason());
      break;
    }
  }
  if (check(state, done, static_cast<long>(state.iterations())) && parser.known_head_matches() != 0) {
    state.SkipWithError("a changed head was matched");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseResponseHeadChanging);

// Two reads per response: the split lands at state.range(0) bytes: 10 is inside
// the status line, 100 inside a header, 260 inside the body (headers are 238 bytes).
void BM_ParseResponseSplitInTwo(benchmark::State& state) {
  const std::string response = typical_response();
  const auto split = static_cast<std::size_t>(state.range(0));
  Completions done;
  KnownHead known;
  ResponseParser parser(count_completion, &done, &known);
  for (auto _ : state) {
    parser.expect(false);
    if (!parser.feed(response.data(), split) ||
        !parser.feed(response.data() + split, response.size() - split)) {
      state.SkipWithError(parser.error_reason());
      break;
    }
  }
  check(state, done, static_cast<long>(state.iterations()));
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<long>(response.size()));
}
BENCHMARK(BM_ParseResponseSplitInTwo)->Arg(10)->Arg(100)->Arg(260);

// 16 pipelined responses arriving in one read, as with wrk's pipeline.lua.
void BM_ParseResponsePipelined16(benchmark::State& state) {
  constexpr int kDepth = 16;
  std::string batch;
  for (int i = 0; i < kDepth; ++i) batch += typical_response();
  Completions done;
  KnownHead known;
  ResponseParser parser(count_completion, &done, &known);
  for (auto _ : state) {
    for (int i = 0; i < kDepth; ++i) parser.expect(false);
    if (!parser.feed(batch.data(), batch.size())) {
      state.SkipWithError(parser.error_reason());
      break;
    }
  }
  check(state, done, static_cast<long>(state.iterations()) * kDepth);
  state.SetItemsProcessed(state.iterations() * kDepth);
  state.SetBytesProcessed(state.iterations() * static_cast<long>(batch.size()));
}
BENCHMARK(BM_ParseResponsePipelined16);

}  // namespace
