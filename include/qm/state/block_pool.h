// The engine's pool of fixed-size blocks (admission records).
//
// Admission records come and go with every admission and release; a pool keeps malloc (and its
// fragmentation) out of the cycle. Each engine owns its pool (a member of its ClusterState), so an
// engine may be created, driven and destroyed on different threads, and nothing outlives it.
//
// Blocks are carved from 64 KiB chunks aligned to their size, each starting with a pointer to its
// pool, so a block finds its pool from its own address (`PoolDelete` stores nothing: 8 bytes per
// workload saved). The first chunks come from the heap, so a small engine costs little; once a
// pool has grown past them it maps 2 MiB regions (32 chunks) and asks the kernel to back them with
// a huge page and fill them in one call. First-touch page faults are what a growing admitted
// population costs (on the virtual machines we measure on, one 4 KiB fault costs ~13 µs: 31 MB of
// records fault for ~100 ms, against ~2–30 ms populated at once).
#ifndef QM_STATE_BLOCK_POOL_H_
#define QM_STATE_BLOCK_POOL_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace qm::internal {

class BlockPool {
 public:
  explicit BlockPool(size_t block_size)
      : block_((block_size + alignof(std::max_align_t) - 1) / alignof(std::max_align_t) *
               alignof(std::max_align_t)) {}
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool() {
    for (void* c : heap_chunks_) std::free(c);
#if defined(__linux__)
    for (void* r : regions_) munmap(r, kRegionBytes);
#endif
  }

  void* Allocate() {
    if (Free* b = free_) {
      free_ = b->next;
      return b;
    }
    if (static_cast<size_t>(end_ - next_) < block_) Grow();  // carve lazily
    void* b = next_;
    next_ += block_;
    return b;
  }
  void Release(void* block) {
    Free* b = static_cast<Free*>(block);
    b->next = free_;
    free_ = b;
  }
  /// The pool that handed out `block`.
  static BlockPool* Owner(const void* block) {
    const auto base = reinterpret_cast<uintptr_t>(block) & ~(kChunkBytes - 1);
    return *reinterpret_cast<BlockPool* const*>(base);
  }
  /// Chunks in use so far (64 KiB each).
  size_t chunk_count() const { return chunks_; }
  /// Chunks taken from the system so far: in use, or reserved and not yet carved.
  size_t obtained_chunks() const { return chunks_ + spare_.size(); }

  /// Takes from the system, now and touched, enough chunks for `blocks` blocks in all (in use,
  /// free or not carved yet), so that handing them out later neither allocates nor faults
  /// (`Engine::Reserve`).
  void Reserve(size_t blocks) {
    const size_t per_chunk = (kChunkBytes - kHeader) / block_;
    const size_t chunks = (blocks + per_chunk - 1) / per_chunk;
    if (chunks <= obtained_chunks()) return;
    spare_.reserve(chunks - chunks_);
    while (obtained_chunks() < chunks) {
      char* c = ObtainChunk();
      for (size_t page = 0; page < kChunkBytes; page += 4096) c[page] = 0;  // touch: fault now, not later
      spare_.push_back(c);
    }
  }

 private:
  struct Free {
    Free* next;
  };
  static constexpr size_t kChunkBytes = 65536;
  static constexpr size_t kRegionBytes = size_t{2} << 20;  // one huge page
  static constexpr size_t kHeapChunks = 8;                 // 512 KiB before regions are mapped

  static constexpr size_t kHeader =
      (sizeof(void*) + alignof(std::max_align_t) - 1) / alignof(std::max_align_t) * alignof(std::max_align_t);

  void Grow() {
    char* c = nullptr;
    if (!spare_.empty()) {
      c = spare_.back();  // reserved ones first; they are all alike
      spare_.pop_back();
    } else {
      c = ObtainChunk();
    }
    *reinterpret_cast<BlockPool**>(c) = this;
    ++chunks_;
    next_ = c + kHeader;
    end_ = c + kChunkBytes;
  }

  char* ObtainChunk() {
#if defined(__linux__)
    if (heap_chunks_.size() >= kHeapChunks) {
      if (region_next_ == region_end_) MapRegion();
      if (region_next_ != region_end_) {
        char* c = region_next_;
        region_next_ += kChunkBytes;
        return c;
      }
    }
#endif
    void* c = std::aligned_alloc(kChunkBytes, kChunkBytes);
    if (c == nullptr) throw std::bad_alloc();
    heap_chunks_.push_back(c);
    return static_cast<char*>(c);
  }

#if defined(__linux__)
  // Maps a 2 MiB region aligned to 2 MiB (so a huge page can back it), populated at once. On any
  // failure the pool keeps taking chunks from the heap.
  void MapRegion() {
    const size_t span = 2 * kRegionBytes;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kRegionBytes - 1) & ~(kRegionBytes - 1);
    if (aligned > start) munmap(raw, aligned - start);
    const uintptr_t tail = aligned + kRegionBytes;
    if (tail < start + span) munmap(reinterpret_cast<void*>(tail), start + span - tail);
    char* region = reinterpret_cast<char*>(aligned);
#if defined(MADV_HUGEPAGE)
    (void)madvise(region, kRegionBytes, MADV_HUGEPAGE);
#endif
#if defined(MADV_POPULATE_WRITE)
    (void)madvise(region, kRegionBytes, MADV_POPULATE_WRITE);  // older kernels: faults as used
#endif
    regions_.push_back(region);
    region_next_ = region;
    region_end_ = region + kRegionBytes;
  }
  std::vector<void*> regions_;
  char* region_next_ = nullptr;
  char* region_end_ = nullptr;
#endif

  size_t block_;
  Free* free_ = nullptr;
  char* next_ = nullptr;
  char* end_ = nullptr;
  size_t chunks_ = 0;
  std::vector<void*> heap_chunks_;
  std::vector<char*> spare_;  ///< obtained by Reserve, not carved yet (owned through regions_ / heap_chunks_)
};

/// Owns one object placed in a BlockPool block; destroying it returns the block to its pool.
template <class T>
struct PoolDelete {
  void operator()(T* p) const {
    BlockPool* pool = BlockPool::Owner(p);
    p->~T();
    pool->Release(p);
  }
};

}  // namespace qm::internal

#endif  // QM_STATE_BLOCK_POOL_H_
