// Distinct texts numbered in the order they first appear (interned_texts.h).
#include "sim/interned_texts.h"

#include <algorithm>
#include <cstring>

namespace qm::sim::internal {
namespace {

constexpr size_t kBlockSize = size_t{1} << 20;  // texts are short: pod sets of a job, a few hundred bytes

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

InternedTexts::InternedTexts() { texts_.emplace_back(); }

std::string_view InternedTexts::Store(std::string_view text) {
  if (text.size() > left_) {
    // A text longer than a block gets a block of its own; the current block's rest stays in use.
    const size_t size = std::max(kBlockSize, text.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    free_ = blocks_.back().get();
    left_ = size;
  }
  std::memcpy(free_, text.data(), text.size());
  const std::string_view stored(free_, text.size());
  free_ += text.size();
  left_ -= text.size();
  return stored;
}

uint32_t InternedTexts::Intern(std::string_view text) {
  const auto it = ids_.find(AbslView(text));
  if (it != ids_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(texts_.size());
  const std::string_view stored = Store(text);
  texts_.push_back(stored);
  ids_.emplace(AbslView(stored), id);
  return id;
}

uint32_t InternedTexts::Find(std::string_view text) const {
  const auto it = ids_.find(AbslView(text));
  return it == ids_.end() ? kNone : it->second;
}

}  // namespace qm::sim::internal
