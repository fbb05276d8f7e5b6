// NameTable: lock-free lookups over an open-addressing table that never moves;
// inserts under a mutex. See name_table.h.
#include "stats/name_table.h"

#include <algorithm>
#include <bit>
#include <functional>

namespace pacer::stats {

NameTable::NameTable(std::size_t max_names)
    : max_names_(std::max<std::size_t>(max_names, 1)),
      mask_(std::bit_ceil(2 * (max_names_ + 1)) - 1),
      names_(std::make_unique<std::string[]>(max_names_ + 1)),
      buckets_(std::make_unique<std::atomic<std::uint32_t>[]>(mask_ + 1)) {
  names_[max_names_] = std::string(kOtherName);
  for (std::size_t i = 0; i <= mask_; ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

std::size_t NameTable::find_bucket(std::string_view name, std::size_t hash) const {
  // Half the buckets at most are used, so an empty one ends every probe.
  for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
    const std::uint32_t entry = buckets_[i].load(std::memory_order_acquire);
    if (entry == 0 || names_[entry - 1] == name) return i;
  }
}

NameId NameTable::lookup(std::string_view name) const {
  name = cut_name(name, kMaxNameBytes);
  const std::uint32_t entry =
      buckets_[find_bucket(name, std::hash<std::string_view>{}(name))].load(std::memory_order_acquire);
  return entry == 0 ? other_id() : entry - 1;
}

NameId NameTable::intern(std::string_view name) {
  name = cut_name(name, kMaxNameBytes);
  const std::size_t hash = std::hash<std::string_view>{}(name);
  if (const std::uint32_t entry = buckets_[find_bucket(name, hash)].load(std::memory_order_acquire); entry != 0) {
    return entry - 1;
  }
  const std::lock_guard lock(insert_mutex_);
  const std::size_t bucket = find_bucket(name, hash);  // another thread may have added it meanwhile
  if (const std::uint32_t entry = buckets_[bucket].load(std::memory_order_acquire); entry != 0) return entry - 1;
  const std::size_t id = size_.load(std::memory_order_relaxed);
  if (id >= max_names_) {
    overflowed_.store(true, std::memory_order_release);
    return other_id();
  }
  names_[id].assign(name);
  buckets_[bucket].store(static_cast<std::uint32_t>(id + 1), std::memory_order_release);
  size_.store(id + 1, std::memory_order_release);
  return static_cast<NameId>(id);
}

std::string_view NameTable::name(NameId id) const { return names_[std::min<std::size_t>(id, max_names_)]; }

std::string default_request_name(std::string_view method, std::string_view path_and_query) {
  const std::size_t query = path_and_query.find_first_of("?#");
  std::string out(method);
  out += ' ';
  out += path_and_query.substr(0, query);
  return out;
}

namespace {

// The length of the valid UTF-8 character at text[at], or 0.
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  std::size_t n = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0 && lead >= 0xC2) n = 2;
  else if ((lead & 0xF0) == 0xE0) n = 3;
  else if ((lead & 0xF8) == 0xF0 && lead <= 0xF4) n = 4;
  if (n == 0 || at + n > text.size()) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  }
  // Overlong three-byte forms, surrogates, and code points past U+10FFFF.
  if (n == 3 && ((lead == 0xE0 && byte(at + 1) < 0xA0) || (lead == 0xED && byte(at + 1) >= 0xA0))) return 0;
  if (n == 4 && ((lead == 0xF0 && byte(at + 1) < 0x90) || (lead == 0xF4 && byte(at + 1) >= 0x90))) return 0;
  return n;
}

// The bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069):
// a terminal honours them, so a server's text could reorder what the report shows.
bool is_bidi_control(std::string_view text, std::size_t at, std::size_t n) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  if (n == 2) return byte(0) == 0xD8 && byte(1) == 0x9C;
  if (n != 3 || byte(0) != 0xE2) return false;
  if (byte(1) == 0x80) return byte(2) == 0x8E || byte(2) == 0x8F || (byte(2) >= 0xAA && byte(2) <= 0xAE);
  return byte(1) == 0x81 && byte(2) >= 0xA6 && byte(2) <= 0xA9;
}

}  // namespace

std::string printable_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (std::size_t at = 0; at < name.size();) {
    const std::size_t n = utf8_length(name, at);
    const unsigned char c = static_cast<unsigned char>(name[at]);
    // C0 controls, DEL, and the C1 controls U+0080..U+009F (U+009B is a CSI to a UTF-8 terminal).
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(name[at + 1]) < 0xA0;
    const bool one_character = c1 || (n > 0 && is_bidi_control(name, at, n));
    if (n == 0 || one_character || (n == 1 && (c < 0x20 || c == 0x7F))) {
      out += '?';
      at += one_character ? n : 1;  // a C1 or bidirectional control is one character, one '?'
      continue;
    }
    out.append(name.substr(at, n));
    at += n;
  }
  return out;
}

std::string_view cut_name(std::string_view name, std::size_t max_bytes) {
  if (name.size() <= max_bytes) return name;
  std::size_t end = max_bytes;
  // Back off continuation bytes (10xxxxxx) so a multi-byte character is not split.
  while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80) --end;
  return name.substr(0, end);
}

}  // namespace pacer::stats
