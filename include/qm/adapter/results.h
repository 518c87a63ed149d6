// The Engine's result types. They live in qm/model/decisions.h (the solver produces them too); this
// header is kept so adapter code can include what it reports from its own folder.
#ifndef QM_ADAPTER_RESULTS_H_
#define QM_ADAPTER_RESULTS_H_

#include "qm/model/decisions.h"

#endif  // QM_ADAPTER_RESULTS_H_
