// --io and PACER_IO. See io_options.h.
#include "cli/io_options.h"

#include <cstdlib>

#include <fmt/format.h>

#include "io/select.h"

namespace pacer::cli {

Result<IoChoice> parse_io(std::string_view text, std::string_view flag) {
  if (const auto choice = io::parse_io_choice(text)) return *choice;
  return bad_argument(fmt::format("{}: unknown I/O engine '{}' (expected auto, uring or epoll)", flag, text));
}

Status check_io_env() {
  const char* env = std::getenv("PACER_IO");
  if (env == nullptr || *env == '\0') return Ok{};
  if (auto io = parse_io(env, "PACER_IO"); !io) return io.error();
  return Ok{};
}

}  // namespace pacer::cli
