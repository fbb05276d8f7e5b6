// `pacer serve`'s requests per name, for /stats: each worker counts the requests
// it receives under "METHOD path" with the query left out (the grouping pacer
// gives unnamed requests), so a test can compare pacer's per-name counts with
// the server's. One table per worker: a single writer (the worker), readers on
// any thread (a /stats request on another worker); no lock, and no allocation
// per request (a name's key is stored in the table's fixed entries).
//
// Caps: kEntries names per worker, keys cut to kMaxKeyBytes; beyond the table
// requests count under "(other)".
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pacer::server {

class PathCounts {
 public:
  static constexpr std::size_t kEntries = 1024;
  static constexpr std::size_t kMaxKeyBytes = 120;

  // Worker thread: one more request for `method` `path` (its query already left
  // out, as the connection notes it).
  void add(std::string_view method, std::string_view path);

  // Any thread: adds this table's counts into `totals` (key -> count; a key
  // new to totals is appended).
  void sum_into(std::vector<std::pair<std::string, std::uint64_t>>& totals) const;

 private:
  struct Entry {
    std::atomic<bool> used{false};        // set (release) once key is written
    std::uint8_t length = 0;
    std::array<char, kMaxKeyBytes> key{};
    std::atomic<std::uint64_t> count{0};  // single writer: relaxed load + store
  };
  Entry* find_or_add(std::string_view key);

  std::array<Entry, kEntries> entries_;
  std::atomic<std::uint64_t> other_{0};
};

// The /stats body's "requests_by_name" object: {"GET /a":3,...} over all tables.
std::string requests_by_name_json(const std::vector<std::unique_ptr<PathCounts>>& tables);

}  // namespace pacer::server
