// The engine's store of workload records: an array indexed by slot that grows in fixed chunks.
//
// A std::vector of records moved every record each time it grew (10⁶ records: 20 reallocations,
// 190 MB copied, and twice the memory held while it copied), and any reference to a record died
// with the move. Chunks never move: growing allocates one more chunk, a record keeps its address
// for as long as the engine lives (slots are reused, never released), and peak memory is the
// records plus at most one partly used chunk.
//
// Indexing costs a shift and a mask; iteration walks slots in order.
#ifndef QM_STATE_RECORD_STORE_H_
#define QM_STATE_RECORD_STORE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace qm {

template <class T, unsigned kChunkBits = 10>
class RecordStore {
 public:
  static constexpr size_t kPerChunk = size_t{1} << kChunkBits;

  RecordStore() = default;
  RecordStore(const RecordStore&) = delete;
  RecordStore& operator=(const RecordStore&) = delete;
  ~RecordStore() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) { return chunks_[i >> kChunkBits][i & (kPerChunk - 1)]; }
  const T& operator[](size_t i) const { return chunks_[i >> kChunkBits][i & (kPerChunk - 1)]; }

  /// Slots available before the store takes more memory.
  size_t capacity() const { return chunks_.size() * kPerChunk; }
  /// Takes, now and touched, the chunks `n` records need, so appending up to `n` allocates and
  /// faults nothing.
  void reserve(size_t n) {
    chunks_.reserve((n + kPerChunk - 1) / kPerChunk);
    while (capacity() < n) {
      T* c = static_cast<T*>(::operator new(sizeof(T) * kPerChunk, std::align_val_t{alignof(T)}));
      std::memset(static_cast<void*>(c), 0, sizeof(T) * kPerChunk);  // fault the pages in now
      chunks_.push_back(c);
    }
  }

  /// Appends a value-initialised record; earlier records do not move.
  T& emplace_back() {
    if (size_ == chunks_.size() * kPerChunk) {
      chunks_.push_back(static_cast<T*>(::operator new(sizeof(T) * kPerChunk, std::align_val_t{alignof(T)})));
    }
    T* slot = &chunks_[size_ >> kChunkBits][size_ & (kPerChunk - 1)];
    ::new (static_cast<void*>(slot)) T();
    ++size_;
    return *slot;
  }

  /// Destroys every record and returns the memory.
  void clear() {
    for (size_t i = size_; i > 0; --i) (*this)[i - 1].~T();
    for (T* c : chunks_) ::operator delete(c, std::align_val_t{alignof(T)});
    chunks_.clear();
    size_ = 0;
  }

  template <class Store, class Ref>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = std::remove_reference_t<Ref>*;
    using reference = Ref;
    Iterator() = default;
    Iterator(Store* store, size_t i) : store_(store), i_(i) {}
    reference operator*() const { return (*store_)[i_]; }
    pointer operator->() const { return &(*store_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    Store* store_ = nullptr;
    size_t i_ = 0;
  };
  using iterator = Iterator<RecordStore, T&>;
  using const_iterator = Iterator<const RecordStore, const T&>;
  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }

 private:
  std::vector<T*> chunks_;
  size_t size_ = 0;
};

}  // namespace qm

#endif  // QM_STATE_RECORD_STORE_H_
