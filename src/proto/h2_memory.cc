// Size-class free lists behind nghttp2_mem. Each block carries a 16-byte header
// holding its class (or the big-block marker and size), so release() needs no lookup.
#include "proto/h2_memory.h"

#include <cstdlib>
#include <cstring>

namespace pacer::proto {

namespace {

constexpr std::size_t kHeaderBytes = 16;  // keeps the payload 16-byte aligned
constexpr std::size_t kSmallestBytes = 32;
constexpr std::uint32_t kBigClass = 0xffffffffu;

struct BlockHeader {
  std::uint32_t size_class;
  std::uint32_t unused;
  std::uint64_t bytes;  // payload capacity
};
static_assert(sizeof(BlockHeader) <= kHeaderBytes);

BlockHeader* header_of(void* block) { return reinterpret_cast<BlockHeader*>(static_cast<char*>(block) - kHeaderBytes); }
void* payload_of(void* raw) { return static_cast<char*>(raw) + kHeaderBytes; }

H2Memory* self(void* user_data) { return static_cast<H2Memory*>(user_data); }
void* mem_malloc(std::size_t size, void* user) { return self(user)->allocate(size); }
void mem_free(void* ptr, void* user) { self(user)->release(ptr); }
void* mem_realloc(void* ptr, std::size_t size, void* user) { return self(user)->reallocate(ptr, size); }
void* mem_calloc(std::size_t count, std::size_t size, void* user) {
  const std::size_t bytes = count * size;
  if (size != 0 && bytes / size != count) return nullptr;
  void* p = self(user)->allocate(bytes);
  if (p != nullptr) std::memset(p, 0, bytes);
  return p;
}

}  // namespace

H2Memory::H2Memory() { mem_ = nghttp2_mem{this, &mem_malloc, &mem_free, &mem_calloc, &mem_realloc}; }

H2Memory::~H2Memory() {
  for (FreeBlock*& head : free_) {
    while (head != nullptr) {
      FreeBlock* next = head->next;
      std::free(reinterpret_cast<char*>(head) - kHeaderBytes);
      head = next;
    }
  }
}

void* H2Memory::allocate(std::size_t bytes) {
  std::uint32_t size_class = 0;
  std::size_t capacity = kSmallestBytes;
  while (capacity < bytes && size_class < kClasses) {
    capacity <<= 1;
    ++size_class;
  }
  if (size_class == kClasses) {
    size_class = kBigClass;
    capacity = bytes;
  } else if (FreeBlock* block = free_[size_class]) {
    free_[size_class] = block->next;
    return block;
  }
  void* raw = std::malloc(kHeaderBytes + capacity);
  if (raw == nullptr) return nullptr;
  ++fresh_blocks_;
  auto* header = static_cast<BlockHeader*>(raw);
  header->size_class = size_class;
  header->bytes = capacity;
  return payload_of(raw);
}

void H2Memory::release(void* block) {
  if (block == nullptr) return;
  BlockHeader* header = header_of(block);
  if (header->size_class == kBigClass) {
    std::free(header);
    return;
  }
  auto* node = static_cast<FreeBlock*>(block);
  node->next = free_[header->size_class];
  free_[header->size_class] = node;
}

void* H2Memory::reallocate(void* block, std::size_t bytes) {
  if (block == nullptr) return allocate(bytes);
  const std::size_t capacity = header_of(block)->bytes;
  if (bytes <= capacity) return block;
  void* grown = allocate(bytes);
  if (grown == nullptr) return nullptr;
  std::memcpy(grown, block, capacity);
  release(block);
  return grown;
}

}  // namespace pacer::proto
