// The run's request names (DESIGN.md: "Names"): each distinct name gets a dense
// id, 0, 1, 2, ..., so that per-name figures live in arrays indexed by id (a
// request slot carries its name's id; nothing on the per-request path hashes or
// copies a name once it has its id).
//
// Capped: at most max_names names; every name after that maps to other_id(),
// reported as "(other)", so a script that puts ids in its names cannot grow
// memory without bound. A name longer than kMaxNameBytes is cut there (at a
// UTF-8 character boundary).
//
// Threads: built before the run (the targets' names, in file order), shared by
// every worker during it. lookup() takes no lock; intern() of a name not seen
// yet takes a mutex and copies it (once per name per run, bounded by the cap).
// A name's id and text never change once given.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace pacer::stats {

using NameId = std::uint32_t;

inline constexpr std::size_t kDefaultMaxNames = 1000;
inline constexpr std::string_view kOtherName = "(other)";

class NameTable {
 public:
  static constexpr std::size_t kMaxNameBytes = 256;

  // max_names >= 1: distinct names kept before "(other)".
  explicit NameTable(std::size_t max_names = kDefaultMaxNames);
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  // The id of `name` (cut to kMaxNameBytes), adding it if there is room, else
  // other_id(). Any thread.
  NameId intern(std::string_view name);
  // The id of a name already interned, without adding it; other_id() if absent.
  NameId lookup(std::string_view name) const;

  // Ids in use are 0..size()-1, plus other_id() once overflowed().
  std::size_t size() const { return size_.load(std::memory_order_acquire); }
  std::size_t max_names() const { return max_names_; }
  // Every id is below this: arrays indexed by NameId have this many entries.
  std::size_t id_limit() const { return max_names_ + 1; }
  NameId other_id() const { return static_cast<NameId>(max_names_); }
  // Whether some name was counted under "(other)" because of the cap.
  bool overflowed() const { return overflowed_.load(std::memory_order_acquire); }
  // The name of an id below size() (or other_id()).
  std::string_view name(NameId id) const;

 private:
  // Open addressing over ids + 1 (0: empty); never resized (room for every id).
  std::size_t find_bucket(std::string_view name, std::size_t hash) const;

  std::size_t max_names_;
  std::size_t mask_;
  std::unique_ptr<std::string[]> names_;  // written before their id is published
  std::unique_ptr<std::atomic<std::uint32_t>[]> buckets_;
  std::atomic<std::size_t> size_{0};
  std::atomic<bool> overflowed_{false};
  std::mutex insert_mutex_;
};

// The name a request gets when nothing names it: "METHOD path" with the query
// string left out (Locust's grouping): "GET /item?id=1" -> "GET /item".
std::string default_request_name(std::string_view method, std::string_view path_and_query);

// The name as reports print it: invalid UTF-8 and control characters (C0, DEL,
// C1, and the bidirectional controls such as U+202E and U+2066) become '?' (the table keeps names as given, so lookups stay exact). Every
// server-, script- or file-derived string a text formatter prints goes through
// it, so no escape sequence reaches a terminal.
std::string printable_name(std::string_view name);

// A name cut to at most max_bytes, at a UTF-8 character boundary.
std::string_view cut_name(std::string_view name, std::size_t max_bytes);

}  // namespace pacer::stats
