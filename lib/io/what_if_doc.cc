// The `whatIf` block of `qm explain --what-if` and of the C API's what-if JSON (report_docs.h).
#include "io/report_docs.h"
#include "qm/core/quantity_text.h"
#include "qm/io/forecast_report.h"

namespace qm::internal {

Doc WhatIfDoc(const WhatIfReport& report) {
  Doc d = Doc::Map();
  d.Set("admittedAsIs", Doc::Bool(report.admitted_as_is));
  Doc answers = Doc::List();
  for (const WhatIfAnswer& a : report.answers) {
    Doc one = Doc::Map();
    one.Set("kind", Doc::Str(a.kind == WhatIfAnswer::Kind::kQuota            ? "quota"
                             : a.kind == WhatIfAnswer::Kind::kBorrowingLimit ? "borrowingLimit"
                                                                             : "priority"));
    one.Set("text", Doc::Str(a.text));
    if (a.kind != WhatIfAnswer::Kind::kPriority) {
      one.Set("clusterQueue", Doc::Str(a.cluster_queue));
      Doc quota = Doc::List();
      for (const WhatIfAnswer::Quota& q : a.quota) {
        Doc item = Doc::Map();
        item.Set("flavor", Doc::Str(q.flavor));
        item.Set("resource", Doc::Str(q.resource));
        item.Set("amount", Doc::Str(FormatAmount(q.resource, q.amount)));
        quota.Add(std::move(item.Flow()));
      }
      one.Set(a.kind == WhatIfAnswer::Kind::kQuota ? "more" : "borrowingLimits", std::move(quota));
    } else {
      one.Set("priority", Doc::Int(a.priority));
      Doc preempts = Doc::List();
      for (const std::string& p : a.preempts) preempts.Add(Doc::Str(p));
      one.Set("preempts", std::move(preempts.Flow()));
    }
    answers.Add(std::move(one));
  }
  d.Set("answers", std::move(answers));
  return d;
}

}  // namespace qm::internal

namespace qm {

std::string RenderWhatIf(const WhatIfReport& report, OutputFormat format) {
  return internal::Emit(internal::WhatIfDoc(report), format);
}

}  // namespace qm
