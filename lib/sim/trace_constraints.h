// The node-constraint columns of a trace (docs/trace-format.md §Node constraints): their text
// syntax, read into the engine's selector types and written back in canonical form.
//
//   node_selector   gpu-model=V100;zone=a                       key=value pairs, ANDed
//   node_affinity   gpu-model In V100|P100;zone NotIn c || x Exists
//                   terms ORed by `||`, expressions in a term ANDed by `;`, values joined by `|`
//   tolerations     spot=true:NoSchedule;gpu:NoExecute;dedicated=ml;maintenance
//                   key=value:Effect (Equal), key:Effect (Exists), no effect = any effect
#ifndef QM_LIB_SIM_TRACE_CONSTRAINTS_H_
#define QM_LIB_SIM_TRACE_CONSTRAINTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "qm/model/selectors.h"

namespace qm::sim::internal {

// Each parser returns "" or the problem (without file, line and column) and fills `out`: the node
// selector sorted by key, affinity terms and tolerations in the order given. The writers print
// what the parsers read back equal.
std::string ParseNodeSelector(std::string_view text, Labels* out);
std::string ParseNodeAffinity(std::string_view text, std::vector<NodeSelectorTerm>* out);
std::string ParseTolerations(std::string_view text, std::vector<Toleration>* out);

std::string FormatNodeSelector(const Labels& selector);
std::string FormatNodeAffinity(const std::vector<NodeSelectorTerm>& terms);
std::string FormatTolerations(const std::vector<Toleration>& tolerations);

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_TRACE_CONSTRAINTS_H_
