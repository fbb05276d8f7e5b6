// Helpers shared by the fuzz targets: an invariant check that aborts (so
// libFuzzer records the input as a crash), the random splits an input is fed
// in, and the small input readers the targets use. Header only; fuzz/ only.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

// An invariant beyond "no crash": when it fails, the input is a finding.
#define FUZZ_CHECK(cond)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

namespace pacer::fuzz {

// Standard input for cli::parse (-b @-, --targets -): an in-memory file holding
// `text`, read from its start, closed with the object.
class StdinText {
 public:
  explicit StdinText(std::string_view text) : fd_(::memfd_create("pacer-fuzz-stdin", MFD_CLOEXEC)) {
    FUZZ_CHECK(fd_ >= 0);
    FUZZ_CHECK(::write(fd_, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    FUZZ_CHECK(::lseek(fd_, 0, SEEK_SET) == 0);
  }
  ~StdinText() { ::close(fd_); }
  StdinText(const StdinText&) = delete;
  StdinText& operator=(const StdinText&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Cut points for feeding `len` bytes in pieces, from a seed byte: the same seed
// gives the same pieces. Pieces are 1..32 bytes long, with now and then a longer
// one, so boundaries fall everywhere (inside a CRLF, a chunk size, a frame header).
inline std::vector<std::size_t> split_lengths(std::size_t len, std::uint8_t seed) {
  std::vector<std::size_t> pieces;
  std::uint32_t state = 0x9e3779b9u ^ (std::uint32_t{seed} * 0x85ebca6bu);
  while (len > 0) {
    state = state * 1664525u + 1013904223u;
    std::size_t piece = 1 + ((state >> 24) & 31);
    if (((state >> 8) & 7) == 0) piece += (state >> 12) & 255;
    if (piece > len) piece = len;
    pieces.push_back(piece);
    len -= piece;
  }
  return pieces;
}

// Reads the input front to back: a byte, or the rest.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool empty() const { return pos_ >= size_; }
  std::string_view bytes(std::size_t n) {
    if (n > size_ - pos_) n = size_ - pos_;
    std::string_view out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }
  std::string_view rest() { return bytes(size_ - pos_); }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace pacer::fuzz
