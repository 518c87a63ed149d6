// The byte-level encoding of engine snapshots (docs/snapshot-format.md): little-endian fixed-width
// integers, length-prefixed strings and lists, tagged sections, and the FNV-1a checksum. Not installed.
//
// The reader never reads past its input and never trusts a count: a list of n elements must have at
// least n bytes left (every element takes at least one), and nothing is reserved ahead of decoding,
// so memory grows only with the bytes actually decoded. Errors are sticky: after the first one every
// read returns zero values and `status()` names the first failure with its byte offset.
#ifndef QM_LIB_ADAPTER_SNAPSHOT_CODEC_H_
#define QM_LIB_ADAPTER_SNAPSHOT_CODEC_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "qm/core/ids.h"
#include "qm/core/time.h"

namespace qm::internal::snapshot {

/// "\x89QMSNAP\n": a non-ASCII first byte (not a text file), the name, a newline (text-mode damage).
inline constexpr char kMagic[8] = {'\x89', 'Q', 'M', 'S', 'N', 'A', 'P', '\n'};
/// The format this build writes (docs/snapshot-format.md, "Versions").
inline constexpr uint32_t kFormatVersion = 5;
/// The oldest format this build still reads: a version-3 snapshot has no refill flag at the end of
/// `CONF` (refill off, as every version-3 engine was); versions 3 and 4 have no historical-share
/// settings in `CONF` and no `HIST` section (the mode off, as it was in every such engine).
inline constexpr uint32_t kOldestReadableVersion = 3;
/// Magic (8), version (4), reserved (4), payload length (8), payload checksum (8).
inline constexpr size_t kHeaderSize = 32;

/// 64-bit FNV-1a over `data`: any single changed byte changes it (each step is a bijection).
inline uint64_t Checksum(std::string_view data) {
  uint64_t h = 14695981039346656037ull;
  for (char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

class Writer {
 public:
  /// Room for `bytes` without regrowth (a hint: writing more still works).
  void Reserve(size_t bytes) { out_.reserve(bytes); }
  void U8(uint8_t v) { Put(&v, 1); }
  void Bool(bool v) { U8(v ? 1 : 0); }
  // Little-endian, written in one piece through a cursor: appending field by field to a string
  // cost a call and a capacity check per field, about half of what saving a copy for a forecast
  // cost (docs/benchmarks.md).
  void U32(uint32_t v) { Fixed<4>(v); }
  void U64(uint64_t v) { Fixed<8>(v); }
  void I32(int32_t v) { U32(static_cast<uint32_t>(v)); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void At(Time t) { I64(t.us); }
  void Period(Duration d) { I64(d.us); }
  /// A workload handle: its slot index, then its generation.
  void Handle(WorkloadHandle h) {
    U32(h.index);
    U32(h.generation);
  }
  /// A list or string length (u32); longer ones make the snapshot fail (`overflow()`).
  void Count(size_t n) {
    if (n > std::numeric_limits<uint32_t>::max()) overflow_ = true;
    U32(static_cast<uint32_t>(n));
  }
  void Str(std::string_view s) {
    Count(s.size());
    Put(s.data(), s.size());
  }
  /// Bytes as they are (the header's magic).
  void Raw(std::string_view s) { Put(s.data(), s.size()); }
  template <class E>
  void Enum(E e) {
    U8(static_cast<uint8_t>(e));
  }

  /// Starts a section: its 4-byte tag and a length patched by `EndSection`.
  size_t BeginSection(const char (&tag)[5]) {
    Put(tag, 4);
    const size_t at = used_;
    U64(0);
    return at;
  }
  void EndSection(size_t at) {
    const uint64_t len = used_ - at - 8;
    for (int i = 0; i < 8; ++i) out_[at + static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(len >> (8 * i)));
  }

  bool overflow() const { return overflow_; }
  /// The bytes written so far; the writer is empty afterwards.
  std::string Take() {
    out_.resize(used_);
    used_ = 0;
    return std::move(out_);
  }

 private:
  template <int N>
  void Fixed(uint64_t v) {
    char b[N];
    for (int i = 0; i < N; ++i) b[i] = static_cast<char>(static_cast<uint8_t>(v >> (8 * i)));
    Put(b, N);
  }
  void Put(const void* p, size_t n) {
    if (out_.size() - used_ < n) Grow(n);
    std::memcpy(out_.data() + used_, p, n);
    used_ += n;
  }
  // The string's size runs ahead of the bytes written, in steps, so a write is a copy and a compare.
  void Grow(size_t n) { out_.resize(std::max(used_ + n, out_.size() + kStep)); }
  static constexpr size_t kStep = 64 * 1024;

  std::string out_;  // bytes [0, used_) are written; the rest is room
  size_t used_ = 0;
  bool overflow_ = false;
};

class Reader {
 public:
  /// `base` is the offset of `data` in the whole snapshot (for error messages).
  Reader(std::string_view data, size_t base) : data_(data), base_(base) {}

  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  size_t offset() const { return base_ + pos_; }

  /// Records the first error (later ones are consequences of it).
  void Fail(std::string_view what) {
    if (status_.ok())
      status_ = absl::DataLossError(fmt::format("snapshot: {} (at byte {})", what, offset()));
  }

  uint8_t U8() {
    if (!Need(1, "a byte")) return 0;
    return static_cast<uint8_t>(data_[pos_++]);
  }
  bool Bool() {
    const uint8_t v = U8();
    if (v > 1) Fail(fmt::format("boolean byte {} is not 0 or 1", v));
    return v == 1;
  }
  uint32_t U32() {
    if (!Need(4, "a 32-bit integer")) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<uint8_t>(data_[pos_++])} << (8 * i);
    return v;
  }
  uint64_t U64() {
    if (!Need(8, "a 64-bit integer")) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<uint8_t>(data_[pos_++])} << (8 * i);
    return v;
  }
  int32_t I32() { return static_cast<int32_t>(U32()); }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  Time At() { return Time{I64()}; }
  Duration Period() { return Duration{I64()}; }
  WorkloadHandle Handle() {
    WorkloadHandle h;
    h.index = U32();
    h.generation = U32();
    return h;
  }
  /// A list length: at most the bytes left (every element takes at least one byte).
  uint32_t Count(std::string_view what) {
    const uint32_t n = U32();
    if (ok() && n > remaining()) {
      Fail(fmt::format("{}: {} elements cannot fit in the {} bytes left", what, n, remaining()));
      return 0;
    }
    return ok() ? n : 0;
  }
  std::string Str() { return std::string(StrView()); }
  /// A string, as a view into the snapshot's bytes (valid while they are): for fields that copy it
  /// into storage of their own, so reading allocates only there.
  std::string_view StrView() {
    const uint32_t n = U32();
    if (!Need(n, "a string")) return {};
    const std::string_view s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  /// An enum stored as a byte, which must be at most `max`.
  template <class E>
  E Enum(E max, std::string_view what) {
    const uint8_t v = U8();
    if (v > static_cast<uint8_t>(max)) {
      Fail(fmt::format("{}: value {} is out of range", what, v));
      return E{};
    }
    return static_cast<E>(v);
  }

  /// Opens the next section, which must carry `tag`; returns a reader of its body.
  Reader Section(const char (&tag)[5]) {
    const size_t at = offset();
    if (!Need(12, "a section header")) return Reader({}, at, status_);
    const std::string_view got = data_.substr(pos_, 4);
    pos_ += 4;
    const uint64_t len = U64();
    if (got != std::string_view(tag, 4)) {
      Fail(fmt::format("expected section '{}', found '{}'", tag, Printable(got)));
      return Reader({}, at, status_);
    }
    if (len > remaining()) {
      Fail(fmt::format("section '{}' claims {} bytes, {} left", tag, len, remaining()));
      return Reader({}, at, status_);
    }
    Reader body(data_.substr(pos_, static_cast<size_t>(len)), offset());
    pos_ += static_cast<size_t>(len);
    return body;
  }
  /// Ends a section's body: it must have been read exactly.
  absl::Status Finish(const char (&tag)[5]) {
    if (ok() && !at_end())
      Fail(fmt::format("section '{}' has {} unread bytes", tag, remaining()));
    return status_;
  }

 private:
  Reader(std::string_view data, size_t base, absl::Status status) : data_(data), base_(base), status_(std::move(status)) {}
  bool Need(size_t n, std::string_view what) {
    if (!ok()) return false;
    if (n > remaining()) {
      Fail(fmt::format("truncated: {} needs {} bytes, {} left", what, n, remaining()));
      return false;
    }
    return true;
  }
  static std::string Printable(std::string_view s) {
    std::string out;
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) out.push_back(c);
      else out += fmt::format("\\x{:02x}", u);
    }
    return out;
  }

  std::string_view data_;
  size_t pos_ = 0;
  size_t base_ = 0;
  absl::Status status_;
};

}  // namespace qm::internal::snapshot

#endif  // QM_LIB_ADAPTER_SNAPSHOT_CODEC_H_
