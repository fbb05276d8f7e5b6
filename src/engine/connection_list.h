// Intrusive FIFO lists of connections (no allocation): the in-flight list in
// send order (its head is always the next request to time out) and, in the open
// model, the list of idle connections. A Connection carries one ListHook per
// list it can be on. Owned by one worker thread.
#pragma once

#include <cstddef>

namespace pacer::engine {

struct Connection;

struct ListHook {
  Connection* prev = nullptr;
  Connection* next = nullptr;
  bool linked = false;
};

template <ListHook Connection::*Hook>
class ConnectionList {
 public:
  bool empty() const { return head_ == nullptr; }
  std::size_t size() const { return size_; }
  Connection* front() const { return head_; }

  void push_back(Connection& c) {
    ListHook& h = c.*Hook;
    h.prev = tail_;
    h.next = nullptr;
    h.linked = true;
    if (tail_ != nullptr) {
      (tail_->*Hook).next = &c;
    } else {
      head_ = &c;
    }
    tail_ = &c;
    ++size_;
  }

  // No-op when c is not on the list.
  void remove(Connection& c) {
    ListHook& h = c.*Hook;
    if (!h.linked) return;
    (h.prev != nullptr ? (h.prev->*Hook).next : head_) = h.next;
    (h.next != nullptr ? (h.next->*Hook).prev : tail_) = h.prev;
    h = ListHook{};
    --size_;
  }

  Connection* pop_front() {
    Connection* c = head_;
    if (c != nullptr) remove(*c);
    return c;
  }

 private:
  Connection* head_ = nullptr;
  Connection* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace pacer::engine
