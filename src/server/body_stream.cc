// Static body buffers and the segment cursor of BodyStream. See body_stream.h.
#include "server/body_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstring>

namespace pacer::server {
namespace {

constexpr std::size_t kPatternBytes = 64 * 1024;
constexpr std::string_view kChunkSizeLine = "1000\r\n";  // 4096 in hex
static_assert(kMaxChunkBytes == 0x1000);
constexpr std::size_t kChunkUnitBytes = kChunkSizeLine.size() + kMaxChunkBytes + 2;
constexpr std::size_t kChunkUnits = 16;
constexpr std::string_view kLastChunk = "0\r\n\r\n";
constexpr std::string_view kEndOfChunkThenLast = "\r\n0\r\n\r\n";

const std::array<char, kPatternBytes>& pattern_buffer() {
  static const std::array<char, kPatternBytes> buffer = [] {
    constexpr std::string_view kAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::array<char, kPatternBytes> b{};
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = (i % 64 == 63) ? '\n' : kAlphabet[i % 64 % kAlphabet.size()];
    return b;
  }();
  return buffer;
}

// kChunkUnits consecutive full chunks ("1000\r\n" + 4096 pattern bytes + "\r\n"), so a
// run of full chunks of any length is this buffer repeated.
const std::array<char, kChunkUnits * kChunkUnitBytes>& chunk_units_buffer() {
  static const std::array<char, kChunkUnits * kChunkUnitBytes> buffer = [] {
    std::array<char, kChunkUnits * kChunkUnitBytes> b{};
    const char* pattern = pattern_buffer().data();
    for (std::size_t unit = 0; unit < kChunkUnits; ++unit) {
      char* p = b.data() + unit * kChunkUnitBytes;
      std::memcpy(p, kChunkSizeLine.data(), kChunkSizeLine.size());
      std::memcpy(p + kChunkSizeLine.size(), pattern, kMaxChunkBytes);
      std::memcpy(p + kChunkSizeLine.size() + kMaxChunkBytes, "\r\n", 2);
    }
    return b;
  }();
  return buffer;
}

}  // namespace

void BodyStream::clear() {
  count_ = 0;
  index_ = 0;
  offset_bytes_ = 0;
  remaining_bytes_ = 0;
}

void BodyStream::add(Segment segment) {
  if (segment.bytes == 0) return;
  assert(count_ < kMaxSegments && segment.period_bytes > 0);
  segments_[static_cast<std::size_t>(count_++)] = segment;
  remaining_bytes_ += segment.bytes;
}

int BodyStream::fill_iov(iovec* iov, int max_iov, std::size_t max_bytes) const {
  int used = 0;
  int index = index_;
  std::uint64_t offset = offset_bytes_;
  while (used < max_iov && max_bytes > 0 && index < count_) {
    const Segment& s = segments_[static_cast<std::size_t>(index)];
    if (offset == s.bytes) {
      ++index;
      offset = 0;
      continue;
    }
    const std::size_t start = static_cast<std::size_t>(offset % s.period_bytes);
    const std::size_t len = static_cast<std::size_t>(
        std::min<std::uint64_t>({s.period_bytes - start, s.bytes - offset, max_bytes}));
    iov[used++] = iovec{const_cast<char*>(s.data + start), len};
    offset += len;
    max_bytes -= len;
  }
  return used;
}

void BodyStream::advance(std::uint64_t written_bytes) {
  assert(written_bytes <= remaining_bytes_);
  remaining_bytes_ -= written_bytes;
  while (written_bytes > 0) {
    const Segment& s = segments_[static_cast<std::size_t>(index_)];
    const std::uint64_t step = std::min(written_bytes, s.bytes - offset_bytes_);
    offset_bytes_ += step;
    written_bytes -= step;
    if (offset_bytes_ == s.bytes) {
      ++index_;
      offset_bytes_ = 0;
    }
  }
  if (remaining_bytes_ == 0) clear();
}

void BodyStream::drain_into(char* dst) {
  iovec iov[8];
  while (!empty()) {
    const int n = fill_iov(iov, 8, static_cast<std::size_t>(remaining_bytes_));
    std::uint64_t copied = 0;
    for (int i = 0; i < n; ++i) {
      std::memcpy(dst, iov[i].iov_base, iov[i].iov_len);
      dst += iov[i].iov_len;
      copied += iov[i].iov_len;
    }
    advance(copied);
  }
}

std::string_view body_pattern() { return {pattern_buffer().data(), pattern_buffer().size()}; }

Segment pattern_segment(std::uint64_t body_bytes) {
  return Segment{pattern_buffer().data(), pattern_buffer().size(), body_bytes};
}

std::uint64_t chunked_wire_bytes(std::uint64_t body_bytes) {
  const std::uint64_t full_chunks = body_bytes / kMaxChunkBytes;
  const std::uint64_t last_bytes = body_bytes % kMaxChunkBytes;
  std::uint64_t wire = full_chunks * kChunkUnitBytes + kLastChunk.size();
  if (last_bytes > 0) wire += fmt::formatted_size("{:x}\r\n", last_bytes) + last_bytes + 2;
  return wire;
}

void add_chunked_body(BodyStream& stream, std::uint64_t body_bytes, std::span<char, 16> scratch) {
  assert(stream.empty());
  const auto& units = chunk_units_buffer();
  const std::uint64_t full_chunks = body_bytes / kMaxChunkBytes;
  const std::uint64_t last_bytes = body_bytes % kMaxChunkBytes;
  stream.add(Segment{units.data(), units.size(), full_chunks * kChunkUnitBytes});
  if (last_bytes == 0) {
    stream.add(plain_segment(kLastChunk));
    return;
  }
  const auto size_line = fmt::format_to_n(scratch.data(), scratch.size(), "{:x}\r\n", last_bytes);
  stream.add(plain_segment({scratch.data(), size_line.size}));
  stream.add(pattern_segment(last_bytes));
  stream.add(plain_segment(kEndOfChunkThenLast));
}

}  // namespace pacer::server
