// The open model's connections with a free slot, in the order they joined: a
// FIFO of the worker's connections by index (Connection::index) with O(1)
// removal, sized once for the worker's connections (no allocation on the hot
// path). The OpenDriver's own; no field of the Connection. One worker thread.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/conn/connection.h"

namespace pacer::engine {

class IdleConnections {
 public:
  // connections: the worker's (every index is below it).
  explicit IdleConnections(std::size_t connections) : nodes_(connections) {}

  bool empty() const { return head_ == kNone; }
  Connection* front() const { return head_ == kNone ? nullptr : nodes_[static_cast<std::size_t>(head_)].c; }
  bool contains(const Connection& c) const { return nodes_[at(c)].on; }

  void push_back(Connection& c) {
    Node& n = nodes_[at(c)];
    n = Node{&c, tail_, kNone, true};
    (tail_ == kNone ? head_ : nodes_[static_cast<std::size_t>(tail_)].next) = c.index;
    tail_ = c.index;
  }
  // No-op when c is not on the list.
  void remove(const Connection& c) {
    Node& n = nodes_[at(c)];
    if (!n.on) return;
    (n.prev == kNone ? head_ : nodes_[static_cast<std::size_t>(n.prev)].next) = n.next;
    (n.next == kNone ? tail_ : nodes_[static_cast<std::size_t>(n.next)].prev) = n.prev;
    n = Node{};
  }

 private:
  static constexpr int kNone = -1;
  struct Node {
    Connection* c = nullptr;
    int prev = kNone;
    int next = kNone;
    bool on = false;
  };
  static std::size_t at(const Connection& c) { return static_cast<std::size_t>(c.index); }

  std::vector<Node> nodes_;
  int head_ = kNone;
  int tail_ = kNone;
};

}  // namespace pacer::engine
