// Quantity-valued fields of Kueue objects: quotas, requests and fair-sharing weights, read with the
// rules Kueue applies to each (docs/semantics.md §1.1). Private to the I/O layer.
#ifndef QM_LIB_IO_QUANTITY_FIELDS_H_
#define QM_LIB_IO_QUANTITY_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "io/yaml_cursor.h"
#include "qm/model/workload.h"

namespace qm::internal {

/// An amount of `resource` (usage in expectations): a quantity ≥ 0 that fits the resource's unit;
/// overflow is an error.
std::optional<int64_t> ReadQuota(const Cursor& c, std::string_view resource);
/// A quota field (nominalQuota, borrowingLimit, lendingLimit) of `resource`: a quantity ≥ 0. As in
/// Kueue (pkg/resources/amount.go AmountFromQuantity), one too large for int64 in the resource's
/// unit (cpu ≥ 9223372036854775 cores, others ≥ 2^63-1) is `kUnlimited`; that adds a note.
std::optional<int64_t> ReadQuotaLimit(const Cursor& c, std::string_view resource);
/// A request of `resource`: overflow clamps to the int64 range and negatives floor to 0, as Kueue
/// does.
std::optional<int64_t> ReadRequest(const Cursor& c, std::string_view resource);
/// A map resource → request (pod-set `requests`, container `requests` / `limits`, `resourceUsage`),
/// sorted by resource.
ResourceAmounts ReadRequestMap(const Cursor& c);
/// `fairSharing.weight` in thousandths: a quantity ≥ 0 in steps of 0.001 ("0.5" → 500).
std::optional<int64_t> ReadWeightMilli(const Cursor& c);

}  // namespace qm::internal

#endif  // QM_LIB_IO_QUANTITY_FIELDS_H_
