// Distinct texts numbered in the order they first appear (private to lib/sim's importers): the
// sink's owners, pod-set texts and node affinities. The texts are copied into large blocks rather
// than one std::string each: a synthetic PAI trace has 250,000 distinct pod-set texts, and
// allocating, rehashing and freeing as many strings cost a tenth of its import.
#ifndef QM_LIB_SIM_INTERNED_TEXTS_H_
#define QM_LIB_SIM_INTERNED_TEXTS_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace qm::sim::internal {

class InternedTexts {
 public:
  /// The id `Find` gives a text not interned.
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  /// Id 0 is reserved, as "none": its text is "", and interning "" gives a new id (as the
  /// importers never intern "", that is only for completeness).
  InternedTexts();
  InternedTexts(const InternedTexts&) = delete;
  InternedTexts& operator=(const InternedTexts&) = delete;

  /// The id of `text`, new when it was not seen before.
  uint32_t Intern(std::string_view text);
  /// The id of `text`, or kNone when it was not interned.
  uint32_t Find(std::string_view text) const;

  std::string_view operator[](uint32_t id) const { return texts_[id]; }
  size_t size() const { return texts_.size(); }

 private:
  std::string_view Store(std::string_view text);  // a copy in the blocks, stable

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* free_ = nullptr;  // the unused rest of the last block
  size_t left_ = 0;
  std::vector<std::string_view> texts_;  // by id
  absl::flat_hash_map<absl::string_view, uint32_t> ids_;  // views of `texts_`
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_INTERNED_TEXTS_H_
