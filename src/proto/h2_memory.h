// A per-worker allocator for nghttp2 (nghttp2_mem): freed blocks are kept on
// free lists by size class and handed out again, so once a few requests have
// warmed it up, nghttp2's per-stream allocations (stream objects, frames, header
// blocks) no longer reach malloc. Memory goes back to the system only when the
// pool is destroyed, after every nghttp2 session that used it.
//
// Thread: one pool per worker, used by that worker's sessions only.
#pragma once

#include <nghttp2/nghttp2.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace pacer::proto {

class H2Memory {
 public:
  H2Memory();
  H2Memory(const H2Memory&) = delete;
  H2Memory& operator=(const H2Memory&) = delete;
  ~H2Memory();

  // The allocator to hand to nghttp2_session_client_new3. Valid while the pool lives.
  nghttp2_mem* mem() { return &mem_; }
  // Blocks taken from malloc so far (not counting reuse): flat once warmed up.
  std::uint64_t fresh_blocks() const { return fresh_blocks_; }

  void* allocate(std::size_t bytes);
  void release(void* block);
  void* reallocate(void* block, std::size_t bytes);

 private:
  // Classes of 32 B, 64 B, ... 64 KiB; larger blocks go straight to malloc.
  static constexpr int kClasses = 12;
  struct FreeBlock {
    FreeBlock* next;
  };
  std::array<FreeBlock*, kClasses> free_{};
  std::uint64_t fresh_blocks_ = 0;
  nghttp2_mem mem_{};
};

}  // namespace pacer::proto
