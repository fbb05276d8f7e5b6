// Choosing and making a worker's engine. See select.h.
#include "io/select.h"

#include <cstdlib>

#include "io/epoll_engine.h"
#include "io/uring_engine.h"

namespace pacer::io {

const std::string& uring_unavailable_reason() {
  static const std::string reason = UringEngine::unavailable_reason();
  return reason;
}

std::optional<IoChoice> parse_io_choice(std::string_view text) {
  if (text == "auto") return IoChoice::kAuto;
  if (text == "uring" || text == "io_uring") return IoChoice::kUring;
  if (text == "epoll") return IoChoice::kEpoll;
  return std::nullopt;
}

Result<EngineChoice> choose_engine(IoChoice choice) {
  // PACER_IO=epoll|uring decides what auto means (a test suite runs once per engine
  // with it; cli::check_io_env has refused other values).
  if (const char* env = std::getenv("PACER_IO"); choice == IoChoice::kAuto && env != nullptr) {
    choice = parse_io_choice(env).value_or(IoChoice::kAuto);
  }
  if (choice == IoChoice::kEpoll) return EngineChoice{EngineKind::kEpoll, ""};
  const std::string& reason = uring_unavailable_reason();
  if (reason.empty()) return EngineChoice{EngineKind::kUring, ""};
  if (choice == IoChoice::kUring) return runtime_error("--io uring: " + reason + " (--io epoll or auto runs on epoll)");
  return EngineChoice{EngineKind::kEpoll, "io_uring unavailable: " + reason};
}

Result<std::unique_ptr<Engine>> make_engine(EngineKind kind, const EngineSizing& sizing) {
  if (kind == EngineKind::kUring) return UringEngine::create(sizing.channels, sizing.readiness_reads);
  return EpollEngine::create();
}

}  // namespace pacer::io
