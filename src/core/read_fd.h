// Reading a file descriptor to its end, for inputs taken whole at start-up (a
// body file, standard input). With read(2), not a stream: a run that reads no
// input constructs no iostream, and so never pays for the C++ locale's start-up.
#pragma once

#include <cstdint>
#include <string>

namespace pacer {

struct ReadToEnd {
  std::string bytes;      // what was read (on an error: what came before it)
  int err = 0;            // errno of a failed read; 0 if none
  bool past_cap = false;  // the input holds more than max_bytes (bytes then holds max_bytes + 1 at most)
};

// Reads fd until end of file (EINTR is retried), at most max_bytes + 1 bytes:
// one more than the cap proves that it was passed.
ReadToEnd read_to_end(int fd, std::uint64_t max_bytes);

}  // namespace pacer
