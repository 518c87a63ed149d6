// Status helpers. Abseil 20220623 has no public status macros, so these are ours.
#ifndef QM_CORE_STATUS_H_
#define QM_CORE_STATUS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define QM_STATUS_CONCAT_INNER_(a, b) a##b
#define QM_STATUS_CONCAT_(a, b) QM_STATUS_CONCAT_INNER_(a, b)

/// Returns from the enclosing function when `expr` (an `absl::Status`) is not OK.
#define QM_RETURN_IF_ERROR(expr)                  \
  do {                                            \
    ::absl::Status qm_status_ = (expr);           \
    if (!qm_status_.ok()) return qm_status_;      \
  } while (false)

/// `QM_ASSIGN_OR_RETURN(auto x, MakeX());` assigns the value of an `absl::StatusOr` or returns its
/// error from the enclosing function.
#define QM_ASSIGN_OR_RETURN(lhs, expr) \
  QM_ASSIGN_OR_RETURN_IMPL_(QM_STATUS_CONCAT_(qm_statusor_, __LINE__), lhs, expr)
#define QM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

#endif  // QM_CORE_STATUS_H_
