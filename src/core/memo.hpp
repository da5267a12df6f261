#pragma once
// A call's host work kept for the next call with the same key: the chooser's decision for a
// shape, a TMA descriptor for a matrix. Thread-safe; bounded: when full it starts over, so that
// memory stays bounded whatever keys arrive. A value is computed outside the lock (two threads
// may both compute a new key; both get the same value).
#include <cstddef>
#include <map>
#include <mutex>

namespace smemlab::detail {

template <class Key, class Value, std::size_t Capacity = 4096>
class Memo {
 public:
  template <class Compute>
  Value get(const Key& key, Compute&& compute) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = values_.find(key); it != values_.end()) return it->second;
    }
    Value value = compute();
    const std::lock_guard lock(mutex_);
    if (values_.size() >= Capacity) values_.clear();
    values_.emplace(key, value);
    return value;
  }

 private:
  std::mutex mutex_;
  std::map<Key, Value> values_;
};

}  // namespace smemlab::detail
