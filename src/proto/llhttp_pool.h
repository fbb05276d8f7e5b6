// The worker's idle llhttp parsers, lent to its connections' ResponseParsers for
// the responses llhttp reads (one whose head matches the known head needs none).
// A connection holds one from such a response's first byte to its end only, so
// 10,000 connections share the few whose responses are in progress at once:
// each holding its own llhttp_t (96 bytes) was 0.9 MB at -c10000. It never
// shrinks, and take() allocates only while every idle one is lent. One worker
// thread.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace pacer::proto {

class LlhttpPool {
 public:
  // An idle parser, or a new one; the caller initialises it (llhttp_init).
  std::unique_ptr<llhttp_t> take() {
    if (idle_.empty()) return std::make_unique<llhttp_t>();
    std::unique_ptr<llhttp_t> parser = std::move(idle_.back());
    idle_.pop_back();
    return parser;
  }
  void give(std::unique_ptr<llhttp_t> parser) { idle_.push_back(std::move(parser)); }
  std::size_t idle() const { return idle_.size(); }

 private:
  std::vector<std::unique_ptr<llhttp_t>> idle_;
};

}  // namespace pacer::proto
