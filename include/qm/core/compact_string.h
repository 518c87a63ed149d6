// A 16-byte immutable-by-value string for the fields of per-workload records.
//
// A pending workload costs one record, so each of its strings (name, UID, last status message)
// matters: `std::string` is 32 bytes before any heap block. `CompactString` is 16 bytes and keeps
// up to 15 characters inline — Kubernetes-style generated names, the UIDs of benchmarks and
// traces, and short messages never allocate. Longer text sits in one exactly sized heap block.
//
// Text with static storage (the engine's fixed condition messages) can be referenced instead of
// copied: `CompactString::Static(kSomeMessage)` allocates nothing, whatever its length, which
// matters where a message is written to every member of a parked class.
//
// It is a value type (copy, move, compare, hash, format) with a read-only interface: a field is
// replaced by assignment, never edited in place. Its address is stable as long as the object does
// not move, which is what queue keys that point at a record's UID rely on (records do not move:
// record_store.h).
#ifndef QM_CORE_COMPACT_STRING_H_
#define QM_CORE_COMPACT_STRING_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "fmt/format.h"

namespace qm {

class CompactString {
 public:
  static constexpr size_t kInlineCapacity = 15;

  CompactString() noexcept { SetInlineSize(0); }
  CompactString(std::string_view s) { Init(s); }  // NOLINT: implicit like std::string
  CompactString(const std::string& s) : CompactString(std::string_view(s)) {}  // NOLINT
  CompactString(const char* s) : CompactString(std::string_view(s)) {}  // NOLINT
  CompactString(const CompactString& o) {
    if (o.tag() == kStaticTag) {
      std::memcpy(bytes_, o.bytes_, sizeof(bytes_));
    } else {
      Init(o.view());
    }
  }
  /// Refers to `text` without copying it: `text` must outlive every copy (a string literal or a
  /// `constexpr` constant).
  static CompactString Static(std::string_view text) {
    CompactString out;
    if (text.size() <= kInlineCapacity) {
      out.Init(text);
    } else {
      out.SetPointer(text.data(), text.size(), kStaticTag);
    }
    return out;
  }
  CompactString(CompactString&& o) noexcept {
    std::memcpy(bytes_, o.bytes_, sizeof(bytes_));
    o.SetInlineSize(0);
  }
  // Copy first, then move in: safe when `o` or `s` refers to this object's own text.
  CompactString& operator=(const CompactString& o) { return *this = CompactString(o); }
  CompactString& operator=(CompactString&& o) noexcept {
    if (this != &o) {
      Release();
      std::memcpy(bytes_, o.bytes_, sizeof(bytes_));
      o.SetInlineSize(0);
    }
    return *this;
  }
  CompactString& operator=(std::string_view s) { return *this = CompactString(s); }
  CompactString& operator=(const std::string& s) { return *this = std::string_view(s); }
  CompactString& operator=(const char* s) { return *this = std::string_view(s); }
  ~CompactString() { Release(); }

  size_t size() const { return out_of_line() ? heap_size() : kInlineCapacity - tag(); }
  bool empty() const { return size() == 0; }
  const char* data() const { return out_of_line() ? heap_ptr() : bytes_; }
  std::string_view view() const { return {data(), size()}; }
  operator std::string_view() const { return view(); }  // NOLINT: reads like std::string
  std::string str() const { return std::string(view()); }
  void clear() { *this = CompactString(); }

  int compare(const CompactString& o) const { return view().compare(o.view()); }
  int compare(std::string_view o) const { return view().compare(o); }

  friend bool operator==(const CompactString& a, const CompactString& b) { return a.view() == b.view(); }
  friend bool operator==(const CompactString& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const CompactString& a, const std::string& b) { return a.view() == b; }
  friend bool operator==(const CompactString& a, const char* b) { return a.view() == b; }
  friend auto operator<=>(const CompactString& a, const CompactString& b) { return a.view() <=> b.view(); }
  friend auto operator<=>(const CompactString& a, std::string_view b) { return a.view() <=> b; }
  friend std::string operator+(std::string a, const CompactString& b) { return a.append(b.view()); }
  friend std::ostream& operator<<(std::ostream& os, const CompactString& s) { return os << s.view(); }
  template <typename H>
  friend H AbslHashValue(H h, const CompactString& s) {
    return H::combine(std::move(h), s.view());
  }

 private:
  // Layout: inline, bytes_[0..14] hold the characters and bytes_[15] = 15 − size (so a full
  // 15-character string ends in a 0 byte); out of line, bytes_[0..7] are the pointer, [8..11]
  // the size, and bytes_[15] = kHeapTag (owned) or kStaticTag (borrowed static text).
  static constexpr uint8_t kHeapTag = 0x80;
  static constexpr uint8_t kStaticTag = 0x81;

  uint8_t tag() const { return static_cast<uint8_t>(bytes_[15]); }
  bool on_heap() const { return tag() == kHeapTag; }
  bool out_of_line() const { return tag() >= kHeapTag; }
  void SetPointer(const char* p, size_t size, uint8_t tag) {
    // Names are capped by validation and messages are the engine's own; a 4 GiB field is a bug.
    if (size > UINT32_MAX) std::abort();
    const auto n = static_cast<uint32_t>(size);
    std::memcpy(bytes_, &p, sizeof(p));
    std::memcpy(bytes_ + 8, &n, sizeof(n));
    bytes_[15] = static_cast<char>(tag);
  }
  void SetInlineSize(size_t n) { bytes_[15] = static_cast<char>(kInlineCapacity - n); }
  const char* heap_ptr() const {
    const char* p;
    std::memcpy(&p, bytes_, sizeof(p));
    return p;
  }
  size_t heap_size() const {
    uint32_t n;
    std::memcpy(&n, bytes_ + 8, sizeof(n));
    return n;
  }
  void Init(std::string_view s) {
    if (s.size() <= kInlineCapacity) {
      if (!s.empty()) std::memcpy(bytes_, s.data(), s.size());
      SetInlineSize(s.size());
      return;
    }
    char* p = static_cast<char*>(std::malloc(s.size()));
    if (p == nullptr) throw std::bad_alloc();
    std::memcpy(p, s.data(), s.size());
    SetPointer(p, s.size(), kHeapTag);
  }
  void Release() {
    if (on_heap()) std::free(const_cast<char*>(heap_ptr()));
  }

  alignas(8) char bytes_[16];
};
static_assert(sizeof(CompactString) == 16);

}  // namespace qm

template <>
struct fmt::formatter<qm::CompactString> : fmt::formatter<fmt::string_view> {
  template <typename Ctx>
  auto format(const qm::CompactString& s, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};

#endif  // QM_CORE_COMPACT_STRING_H_
