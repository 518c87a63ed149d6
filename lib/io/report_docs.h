// Doc builders shared by the `qm run` and `qm explain` reports. Private to the I/O layer.
#ifndef QM_LIB_IO_REPORT_DOCS_H_
#define QM_LIB_IO_REPORT_DOCS_H_

#include <string>

#include "qm/text/output_format.h"
#include "qm/adapter/what_if.h"
#include "qm/model/decisions.h"
#include "text/doc.h"

namespace qm::internal {

/// `{main: {count: 2, flavors: {cpu: spot}, usage: {cpu: "4"}}}` for the pod sets of an admission.
Doc AdmittedPodSetsDoc(const Assignment& a);
/// `{main: {cpu: {flavor: spot, mode: Fit}}}`: every resource of every pod set with its mode.
Doc AssignmentModesDoc(const Assignment& a);
/// `{admittedAsIs, answers: [{kind, text, ...}]}` for `Engine::WhatIf` (qm explain, the C API).
Doc WhatIfDoc(const WhatIfReport& report);
/// YAML or JSON text of `doc`.
std::string Emit(const Doc& doc, OutputFormat format);

}  // namespace qm::internal

#endif  // QM_LIB_IO_REPORT_DOCS_H_
