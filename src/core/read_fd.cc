// Reading a file descriptor to its end; see the header.
#include "core/read_fd.h"

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace pacer {

ReadToEnd read_to_end(int fd, std::uint64_t max_bytes) {
  constexpr std::size_t kChunkBytes = 64 * 1024;
  ReadToEnd out;
  char chunk[kChunkBytes];
  for (;;) {
    const std::uint64_t left = max_bytes - out.bytes.size();  // bytes.size() <= max_bytes here
    const std::size_t want = left >= kChunkBytes ? kChunkBytes : static_cast<std::size_t>(left) + 1;
    const ssize_t n = ::read(fd, chunk, want);
    if (n == 0) return out;
    if (n < 0) {
      if (errno == EINTR) continue;
      out.err = errno;
      return out;
    }
    out.bytes.append(chunk, static_cast<std::size_t>(n));
    if (out.bytes.size() > max_bytes) {
      out.past_cap = true;
      return out;
    }
  }
}

}  // namespace pacer
