// Checks for programmer errors (never for bad input, which gets an absl::Status).
//
// `QM_DCHECK(cond, msg)` aborts with a message in debug builds and compiles to nothing under NDEBUG.
// Users may define `QM_DCHECK` themselves before including any qm header to route it elsewhere.
#ifndef QM_CORE_ASSERT_H_
#define QM_CORE_ASSERT_H_

#include <cstdio>
#include <cstdlib>

#ifndef QM_DCHECK
#ifdef NDEBUG
#define QM_DCHECK(cond, msg) ((void)0)
#else
#define QM_DCHECK(cond, msg)                                                          \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: QM_DCHECK(%s) failed: %s\n", __FILE__, __LINE__, \
                   #cond, msg);                                                       \
      std::abort();                                                                   \
    }                                                                                 \
  } while (false)
#endif
#endif

#endif  // QM_CORE_ASSERT_H_
