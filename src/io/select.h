// Choosing and making a worker's engine: --io auto|uring|epoll (or PACER_IO) and
// what this kernel allows (UringEngine::unavailable_reason, checked once per
// process), then one engine per worker with the sizes it needs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/config.h"
#include "core/expected.h"
#include "io/engine.h"

namespace pacer::io {

struct EngineChoice {
  EngineKind kind = EngineKind::kEpoll;
  std::string fallback;  // --io auto on epoll: why io_uring could not run ("" otherwise)
};

// The names of --io and PACER_IO: "auto", "uring" (or "io_uring"), "epoll";
// nullopt for anything else (cli/io_options.h words the error).
std::optional<IoChoice> parse_io_choice(std::string_view text);

// --io uring where io_uring cannot run: a runtime error (exit 1) with the reason.
// auto: PACER_IO=epoll|uring when set, else io_uring where it can run.
Result<EngineChoice> choose_engine(IoChoice choice);

// Why io_uring cannot run here, "" when it can (computed once, then cached).
const std::string& uring_unavailable_reason();

struct EngineSizing {
  int channels = 1;             // the worker's connections
  bool readiness_reads = true;  // some channels will be kReadiness and read through the engine (TLS)
};

Result<std::unique_ptr<Engine>> make_engine(EngineKind kind, const EngineSizing& sizing);

}  // namespace pacer::io
