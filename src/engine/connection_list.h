// Intrusive FIFO lists (no allocation): the worker's in-flight list of request
// slots in send order (its head is always the next request to time out), its
// lists of pending TCP connects and TLS handshakes in start order (likewise) and,
// in the open model, the list of connections with a free slot. An element carries
// one ListHook per list it can be on. Owned by one worker thread.
#pragma once

#include <cstddef>

namespace pacer::engine {

template <typename T>
struct ListHook {
  T* prev = nullptr;
  T* next = nullptr;
  bool linked = false;
};

template <typename T, ListHook<T> T::*Hook>
class IntrusiveList {
 public:
  bool empty() const { return head_ == nullptr; }
  std::size_t size() const { return size_; }
  T* front() const { return head_; }

  void push_back(T& item) {
    ListHook<T>& h = item.*Hook;
    h.prev = tail_;
    h.next = nullptr;
    h.linked = true;
    if (tail_ != nullptr) {
      (tail_->*Hook).next = &item;
    } else {
      head_ = &item;
    }
    tail_ = &item;
    ++size_;
  }

  // No-op when item is not on the list.
  void remove(T& item) {
    ListHook<T>& h = item.*Hook;
    if (!h.linked) return;
    (h.prev != nullptr ? (h.prev->*Hook).next : head_) = h.next;
    (h.next != nullptr ? (h.next->*Hook).prev : tail_) = h.prev;
    h = ListHook<T>{};
    --size_;
  }

  T* pop_front() {
    T* item = head_;
    if (item != nullptr) remove(*item);
    return item;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace pacer::engine
