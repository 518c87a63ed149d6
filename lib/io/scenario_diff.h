// Comparing a step's expectations with what the engine reports after the step. Private to the I/O
// layer.
#ifndef QM_LIB_IO_SCENARIO_DIFF_H_
#define QM_LIB_IO_SCENARIO_DIFF_H_

#include <string>
#include <vector>

#include "qm/io/scenario.h"

namespace qm::internal {

/// One line per mismatch, keys in the order of the format (admitted, admissions, preempted,
/// pending, inadmissible, targets, assignment, representativeMode, borrowing, messages, usage),
/// names sorted within a key. Empty when every present key holds.
std::vector<std::string> CompareExpectations(const Expectations& expect, const ScenarioStep& step,
                                             const StepResult& result, const Engine& engine);

}  // namespace qm::internal

#endif  // QM_LIB_IO_SCENARIO_DIFF_H_
