// Response bodies written straight from read-only memory with writev: the /bytes
// pattern, the /chunked chunk units, a connection's echo buffer. A BodyStream is a
// short list of segments, each a buffer that may repeat with a period (so 1 GiB is
// sent from 64 KiB with no allocation), plus a write cursor. The static buffers
// are built once (first use, thread-safe) and never written again. A BodyStream is
// owned by one Connection and touched only by that connection's worker thread.
#pragma once

#include <sys/uio.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace pacer::server {

// Bytes [0, period_bytes) of data, repeated until `bytes` bytes have been produced.
struct Segment {
  const char* data = nullptr;
  std::size_t period_bytes = 0;
  std::uint64_t bytes = 0;
};

inline Segment plain_segment(std::string_view text) { return Segment{text.data(), text.size(), text.size()}; }

class BodyStream {
 public:
  static constexpr int kMaxSegments = 4;

  void clear();
  void add(Segment segment);  // a zero-length segment is ignored; at most kMaxSegments
  std::uint64_t remaining_bytes() const { return remaining_bytes_; }
  bool empty() const { return remaining_bytes_ == 0; }

  // Describes the next unwritten bytes (at most max_bytes of them) in up to max_iov
  // entries; returns the number of entries used. Does not move the cursor.
  int fill_iov(iovec* iov, int max_iov, std::size_t max_bytes) const;
  // Moves the cursor past written_bytes (<= remaining_bytes()).
  void advance(std::uint64_t written_bytes);
  // Copies every remaining byte to dst (room for remaining_bytes()) and empties the stream.
  void drain_into(char* dst);

 private:
  std::array<Segment, kMaxSegments> segments_{};
  int count_ = 0;
  int index_ = 0;                 // current segment
  std::uint64_t offset_bytes_ = 0;  // cursor within the current segment
  std::uint64_t remaining_bytes_ = 0;
};

// The /bytes body: position p of any body holds body_pattern()[p % size()].
// Printable ASCII in 64-byte lines ending with '\n'.
std::string_view body_pattern();
Segment pattern_segment(std::uint64_t body_bytes);

constexpr std::size_t kMaxChunkBytes = 4096;
// Bytes on the wire for body_bytes of chunked body: the chunks and the 0-chunk.
std::uint64_t chunked_wire_bytes(std::uint64_t body_bytes);
// Adds the chunked encoding of body_bytes pattern bytes (chunks of kMaxChunkBytes,
// a shorter last one, then "0\r\n\r\n"). scratch holds the last chunk's size line
// and must outlive the stream. Uses up to 4 segments; the stream must be empty.
void add_chunked_body(BodyStream& stream, std::uint64_t body_bytes, std::span<char, 16> scratch);

}  // namespace pacer::server
