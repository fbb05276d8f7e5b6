// Per-name request counts of `pacer serve`. See path_counts.h.
#include "server/path_counts.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

namespace pacer::server {

PathCounts::Entry* PathCounts::find_or_add(std::string_view key) {
  const std::size_t start = std::hash<std::string_view>{}(key) % kEntries;
  for (std::size_t probe = 0; probe < kEntries; ++probe) {
    Entry& e = entries_[(start + probe) % kEntries];
    if (!e.used.load(std::memory_order_relaxed)) {  // only this thread writes: free for good
      std::copy(key.begin(), key.end(), e.key.begin());
      e.length = static_cast<std::uint8_t>(key.size());
      e.used.store(true, std::memory_order_release);
      return &e;
    }
    if (std::string_view(e.key.data(), e.length) == key) return &e;
  }
  return nullptr;
}

void PathCounts::add(std::string_view method, std::string_view path) {
  std::array<char, kMaxKeyBytes> key{};
  const std::size_t method_bytes = std::min(method.size(), kMaxKeyBytes - 1);
  std::copy_n(method.begin(), method_bytes, key.begin());
  key[method_bytes] = ' ';
  const std::size_t path_bytes = std::min(path.size(), kMaxKeyBytes - method_bytes - 1);
  std::copy_n(path.begin(), path_bytes, key.begin() + static_cast<std::ptrdiff_t>(method_bytes + 1));
  Entry* e = find_or_add(std::string_view(key.data(), method_bytes + 1 + path_bytes));
  std::atomic<std::uint64_t>& counter = e != nullptr ? e->count : other_;
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void PathCounts::sum_into(std::vector<std::pair<std::string, std::uint64_t>>& totals) const {
  auto add_to = [&totals](std::string_view key, std::uint64_t n) {
    auto it = std::find_if(totals.begin(), totals.end(), [key](const auto& t) { return t.first == key; });
    if (it == totals.end()) {
      totals.emplace_back(std::string(key), n);
    } else {
      it->second += n;
    }
  };
  for (const Entry& e : entries_) {
    if (!e.used.load(std::memory_order_acquire)) continue;
    add_to(std::string_view(e.key.data(), e.length), e.count.load(std::memory_order_relaxed));
  }
  if (const std::uint64_t other = other_.load(std::memory_order_relaxed); other > 0) add_to("(other)", other);
}

namespace {

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  out += '"';
}

}  // namespace

std::string requests_by_name_json(const std::vector<std::unique_ptr<PathCounts>>& tables) {
  std::vector<std::pair<std::string, std::uint64_t>> totals;
  for (const auto& t : tables) t->sum_into(totals);
  std::string out = "{";
  for (const auto& [key, count] : totals) {
    if (out.size() > 1) out += ',';
    append_json_string(out, key);
    out += fmt::format(":{}", count);
  }
  return out + "}";
}

}  // namespace pacer::server
