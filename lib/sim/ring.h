// A FIFO over one growing buffer (private to lib/sim).
#ifndef QM_LIB_SIM_RING_H_
#define QM_LIB_SIM_RING_H_

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace qm::sim::internal {

// A FIFO that reuses its storage: pushing never allocates once it has grown to the most entries
// it held at once.
template <class T>
class Ring {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  const T& front() const { return items_[head_]; }
  const T& operator[](size_t i) const { return items_[(head_ + i) % items_.size()]; }
  void pop_front() {
    head_ = (head_ + 1) % items_.size();
    --size_;
  }
  void push_back(const T& v) {
    if (size_ == items_.size()) {
      std::vector<T> grown;
      grown.reserve(std::max<size_t>(16, 2 * items_.size()));
      for (size_t i = 0; i < size_; ++i) grown.push_back((*this)[i]);
      grown.resize(grown.capacity());
      items_ = std::move(grown);
      head_ = 0;
    }
    items_[(head_ + size_) % items_.size()] = v;
    ++size_;
  }

 private:
  std::vector<T> items_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_RING_H_
