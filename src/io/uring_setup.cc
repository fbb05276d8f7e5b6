// The io_uring engine's set-up: the ring (its sizes and flags), the provided
// buffers and their ring, the registered file table, and whether this kernel or
// sandbox can run the engine at all. The operations are in uring_engine.cc.
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "io/uring_engine.h"

namespace pacer::io {

namespace {

std::uint32_t pow2_between(std::uint64_t want, std::uint32_t low, std::uint32_t high) {
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(std::bit_ceil(std::max<std::uint64_t>(want, 1)), low, high));
}

std::uint32_t completion_entries(std::uint64_t channels, std::uint32_t buffers) {
  return pow2_between(channels + buffers, 256, 65536);
}

}  // namespace

// ---- set-up ------------------------------------------------------------------

Result<std::unique_ptr<Engine>> UringEngine::create(int channels, bool readiness_reads) {
  std::unique_ptr<UringEngine> engine(new UringEngine());
  if (Status s = engine->setup(channels, readiness_reads); !s) return s.error();
  return std::unique_ptr<Engine>(std::move(engine));
}

Status UringEngine::setup(int channels, bool readiness_reads) {
  const auto wanted = static_cast<std::uint64_t>(std::max(channels, 1));
  buffer_count_ = pow2_between(wanted, kMinBuffers, kMaxBuffers);
  io_uring_params params{};
  params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER |
                 IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED;
  // Completion queue: room for a receive per buffer and one more completion per
  // channel (its send's; a connect, a cancel or a close comes instead of it, not
  // beside it). Past it the kernel keeps completions on its overflow list, or ends
  // a multishot receive early (received() arms it again): nothing is lost. The
  // whole queue is resident (the kernel writes it round), so its size is memory:
  // at -c10000 two completions per channel were 512 KiB, one is 256 (issue 46).
  params.cq_entries = completion_entries(wanted, buffer_count_);
  // Submission queue: next_sqe() hands a full one over and goes on, so past 2,048
  // entries (128 KiB, resident likewise) a larger one saves a system call per
  // 2,048 submissions and costs memory.
  const std::uint32_t entries = pow2_between(wanted * 2, 64, 2048);
  int r = io_uring_queue_init_params(entries, &ring_, &params);
  if (r == -EINVAL) {  // before Linux 6.1: no single issuer, no deferred task work
    params = io_uring_params{};
    params.flags = IORING_SETUP_CQSIZE;
    params.cq_entries = completion_entries(wanted, buffer_count_);
    r = io_uring_queue_init_params(entries, &ring_, &params);
    enabled_ = true;
  }
  if (r < 0) return runtime_error(fmt::format("io_uring_setup: {}", std::strerror(-r)));
  ring_ready_ = true;
  if ((params.features & IORING_FEAT_EXT_ARG) == 0) return runtime_error("io_uring: no IORING_FEAT_EXT_ARG (Linux 5.11+)");
  // The provided buffers and their ring.
  buf_ring_bytes_ = buffer_count_ * sizeof(io_uring_buf);
  void* ring_memory = ::mmap(nullptr, buf_ring_bytes_, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  void* buffer_memory = ::mmap(nullptr, std::size_t{buffer_count_} * kBufferBytes, PROT_READ | PROT_WRITE,
                               MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (ring_memory == MAP_FAILED || buffer_memory == MAP_FAILED) {
    if (ring_memory != MAP_FAILED) ::munmap(ring_memory, buf_ring_bytes_);
    if (buffer_memory != MAP_FAILED) ::munmap(buffer_memory, std::size_t{buffer_count_} * kBufferBytes);
    return runtime_error(fmt::format("io_uring buffers: {}", std::strerror(errno)));
  }
  buf_ring_ = static_cast<io_uring_buf_ring*>(ring_memory);
  buffers_ = static_cast<char*>(buffer_memory);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<std::uintptr_t>(buf_ring_);
  reg.ring_entries = buffer_count_;
  reg.bgid = kBufferGroup;
  if (const int e = io_uring_register_buf_ring(&ring_, &reg, 0); e < 0) {
    return runtime_error(fmt::format("io_uring provided buffer ring (Linux 5.19+): {}", std::strerror(-e)));
  }
  io_uring_buf_ring_init(buf_ring_);
  next_.assign(buffer_count_, kNoBuffer);
  offset_.assign(buffer_count_, 0);
  length_.assign(buffer_count_, 0);
  stamp_.assign(buffer_count_, 0);
  for (std::uint32_t i = 0; i < buffer_count_; ++i) give_back(static_cast<std::uint16_t>(i));
  recv_msg_.msg_controllen = CMSG_SPACE(sizeof(timespec));
  // Registered files: one slot per connection and a few spare (the kernel caps the
  // table at RLIMIT_NOFILE; without one, plain fds).
  const auto slots = static_cast<std::uint32_t>(std::min<std::uint64_t>(wanted + 16, 65536));
  if (io_uring_register_files_sparse(&ring_, slots) == 0) {
    slot_fds_.assign(slots, -1);
    free_slots_.reserve(slots);
    for (std::uint32_t i = slots; i > 0; --i) free_slots_.push_back(static_cast<std::int32_t>(i - 1));
  }
  starved_.reserve(static_cast<std::size_t>(wanted) * 2);  // at most one per arm: an old and a new socket per channel
  if (readiness_reads) read_buffer_ = std::make_unique_for_overwrite<char[]>(kReadBufferBytes);  // TLS only
  return Ok{};
}

UringEngine::~UringEngine() {
  if (ring_ready_) io_uring_queue_exit(&ring_);
  if (buf_ring_ != nullptr) ::munmap(buf_ring_, buf_ring_bytes_);
  if (buffers_ != nullptr) ::munmap(buffers_, std::size_t{buffer_count_} * kBufferBytes);
}

// ---- availability ---------------------------------------------------------------

std::string UringEngine::unavailable_reason() {
  if (const char* off = std::getenv("PACER_IO_URING_DISABLE"); off != nullptr && *off != '\0' && std::strcmp(off, "0") != 0) {
    return "io_uring is disabled by PACER_IO_URING_DISABLE (a test switch)";
  }
  io_uring ring{};
  if (const int r = io_uring_queue_init(2, &ring, 0); r < 0) {
    return fmt::format("io_uring_setup: {} (no io_uring in this kernel, or blocked by a seccomp filter or "
                       "kernel.io_uring_disabled)", std::strerror(-r));
  }
  io_uring_probe* probe = io_uring_get_probe_ring(&ring);
  io_uring_queue_exit(&ring);
  if (probe == nullptr) return "io_uring: cannot probe its operations (Linux 5.6+)";
  std::string missing;
  for (const auto& [op, name] : {std::pair{IORING_OP_RECVMSG, "recvmsg"}, std::pair{IORING_OP_SEND, "send"},
                                 std::pair{IORING_OP_POLL_ADD, "poll"}, std::pair{IORING_OP_ASYNC_CANCEL, "cancel"}}) {
    if (!io_uring_opcode_supported(probe, op)) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", name);
  }
  io_uring_free_probe(probe);
  if (!missing.empty()) return "io_uring lacks operations pacer needs: " + missing;
  auto engine = create(1, false);  // the buffer ring (Linux 5.19+) and the ring's flags
  if (!engine) return engine.error().message;
  return "";
}

}  // namespace pacer::io
