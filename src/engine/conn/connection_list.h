// Intrusive FIFO lists (no allocation): the worker's in-flight list of request
// slots in send order (its head is always the next request to time out), its
// lists of pending TCP connects and TLS handshakes in start order (likewise) and
// the read budget's unread list. An element carries one ListHook per list it can
// be on. Owned by one worker thread.
#pragma once

#include <cstddef>

namespace pacer::engine {

// Off every list: both null. On a list: only its head has no prev (so whether an
// element is on a list is a question for the list: contains()).
template <typename T>
struct ListHook {
  T* prev = nullptr;
  T* next = nullptr;
};

// Hook: a pointer to T's ListHook<T> member (or to a member derived from one).
template <typename T, auto Hook>
class IntrusiveList {
 public:
  bool empty() const { return head_ == nullptr; }
  std::size_t size() const { return size_; }
  T* front() const { return head_; }
  bool contains(const T& item) const { return (item.*Hook).prev != nullptr || head_ == &item; }

  void push_back(T& item) {
    ListHook<T>& h = item.*Hook;
    h.prev = tail_;
    h.next = nullptr;
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
    if (!contains(item)) return;
    ListHook<T>& h = item.*Hook;
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
