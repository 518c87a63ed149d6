#include "qm/hyperpod/governance.h"

#include <algorithm>
#include <string>

#include "fmt/format.h"
#include "qm/core/status.h"
#include "qm/hyperpod/translate.h"
#include "qm/model/namespace_name.h"

namespace qm::hyperpod {
namespace {

std::string WorkloadLabel(const WorkloadSpec& w) {
  return fmt::format("Workload/{}/{}", NamespaceOrDefault(w.namespace_), w.name);
}

std::string QueueOf(const WorkloadSpec& w) {
  if (const std::string* v = FindLabel(w.labels, kQueueNameLabel); v != nullptr && !v->empty()) {
    return *v;
  }
  return w.queue_name;
}

// The WorkloadPriorityClass a workload names (label or spec), "" for none.
std::string ClassOf(const WorkloadSpec& w, std::string* field) {
  if (const std::string* v = FindLabel(w.labels, kPriorityClassLabel); v != nullptr && !v->empty()) {
    *field = fmt::format("metadata.labels[{}]", kPriorityClassLabel);
    return *v;
  }
  if (w.priority_class.source == PriorityClassSource::kWorkloadPriorityClass) {
    *field = "spec.priorityClassName";
    return w.priority_class.name;
  }
  return "";
}

// A class the workload names that the cluster policy does not define ("" names none).
bool IsUndefinedClass(const Governance& governance, const std::string& cls) {
  return !cls.empty() && std::find(governance.priority_classes.begin(), governance.priority_classes.end(),
                                   cls) == governance.priority_classes.end();
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Governance Governance::FromPolicies(const PolicySet& policies) {
  Governance g;
  for (const ComputeQuotaPolicy& q : policies.quotas) {
    g.teams.push_back({.team = q.team,
                       .namespace_ = TeamNamespace(q.team),
                       .local_queue = TeamLocalQueue(q.team),
                       .cluster_queue = TeamClusterQueue(q.team),
                       .enabled = q.enabled});
  }
  std::sort(g.teams.begin(), g.teams.end(), [](const Team& a, const Team& b) { return a.team < b.team; });
  if (policies.scheduler.has_value()) {
    for (const PriorityClassPolicy& pc : policies.scheduler->priority_classes) {
      g.priority_classes.push_back(PriorityClassName(pc.name));
    }
  }
  return g;
}

const Governance::Team* Governance::FindTeam(std::string_view team) const {
  for (const Team& t : teams) {
    if (t.team == team) return &t;
  }
  return nullptr;
}

const Governance::Team* Governance::FindNamespace(std::string_view namespace_) const {
  for (const Team& t : teams) {
    if (t.namespace_ == namespace_) return &t;
  }
  return nullptr;
}

absl::Status CheckSubmission(const Governance& governance, const WorkloadSpec& workload) {
  const Governance::Team* team =
      governance.FindNamespace(NamespaceOrDefault(workload.namespace_));
  if (team == nullptr || !team->enabled) return absl::OkStatus();
  if (QueueOf(workload).empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: metadata.labels[{}]: denied by ValidatingAdmissionPolicy {}: {}", WorkloadLabel(workload),
        kQueueNameLabel, kAdmissionPolicyName, kMissingQueueNameMessage));
  }
  std::string field;
  const std::string cls = ClassOf(workload, &field);
  if (IsUndefinedClass(governance, cls)) {
    if (governance.priority_classes.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {}: priority class '{}' is not defined; the cluster policy defines no "
                      "priority classes (first-come first-serve), so omit the label",
                      WorkloadLabel(workload), field, cls));
    }
    return absl::InvalidArgumentError(
        fmt::format("{}: {}: priority class '{}' is not defined; defined classes: {}",
                    WorkloadLabel(workload), field, cls, JoinNames(governance.priority_classes)));
  }
  return absl::OkStatus();
}

std::string EffectivePrincipal(std::string_view principal) {
  // arn:<partition>:sts::<account>:assumed-role/<role>/<session>
  constexpr std::string_view kAssumed = ":assumed-role/";
  const size_t sts = principal.find(":sts::");
  const size_t assumed = principal.find(kAssumed);
  if (!principal.starts_with("arn:") || sts == std::string_view::npos ||
      assumed == std::string_view::npos || assumed < sts) {
    return std::string(principal);
  }
  const std::string_view partition = principal.substr(4, sts - 4);
  const std::string_view account = principal.substr(sts + 6, assumed - (sts + 6));
  std::string_view rest = principal.substr(assumed + kAssumed.size());
  const size_t slash = rest.find('/');
  const std::string_view role = slash == std::string_view::npos ? rest : rest.substr(0, slash);
  return fmt::format("arn:{}:iam::{}:role/{}", partition, account, role);
}

std::vector<std::string> TeamsOf(const AccessTable& access, std::string_view principal) {
  const std::string who = EffectivePrincipal(principal);
  std::vector<std::string> out;
  for (const auto& [member, teams] : access.members) {
    if (EffectivePrincipal(member) != who) continue;
    out.insert(out.end(), teams.begin(), teams.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool IsAdmin(const AccessTable& access, std::string_view principal) {
  const std::string who = EffectivePrincipal(principal);
  return std::any_of(access.admins.begin(), access.admins.end(),
                     [&](const std::string& a) { return EffectivePrincipal(a) == who; });
}

namespace {

// " (evaluated as <role>)" when the principal is an assumed-role session, for messages.
std::string EvaluatedAs(std::string_view principal) {
  const std::string who = EffectivePrincipal(principal);
  return who == principal ? "" : fmt::format(" (evaluated as {})", who);
}

}  // namespace

absl::Status CheckNamespaceAccess(const AccessTable& access, const Governance& governance,
                                  std::string_view principal, const WorkloadSpec& workload) {
  if (IsAdmin(access, principal)) return absl::OkStatus();
  const std::vector<std::string> teams = TeamsOf(access, principal);
  const std::string ns(NamespaceOrDefault(workload.namespace_));
  for (const std::string& t : teams) {
    const Governance::Team* team = governance.FindTeam(t);
    if (team != nullptr && team->namespace_ == ns) return absl::OkStatus();
  }
  return absl::PermissionDeniedError(fmt::format(
      "{}: principal '{}'{} may not submit to namespace '{}': {}", WorkloadLabel(workload),
      principal, EvaluatedAs(principal), ns,
      teams.empty() ? std::string("it belongs to no team")
                    : fmt::format("it belongs to team{} {}", teams.size() == 1 ? "" : "s",
                                  JoinNames(teams))));
}

namespace {

// The rest of `may_submit` once `CheckNamespaceAccess` passed: the team's own queue, a defined class.
absl::Status CheckQueueAndClass(const AccessTable& access, const Governance& governance,
                                std::string_view principal, const WorkloadSpec& workload) {
  if (IsAdmin(access, principal)) return absl::OkStatus();
  const Governance::Team* team =
      governance.FindNamespace(NamespaceOrDefault(workload.namespace_));
  const std::string queue = QueueOf(workload);
  if (queue.empty()) {
    return absl::PermissionDeniedError(fmt::format(
        "{}: principal '{}'{} must submit to queue '{}' (label {}), but names no queue",
        WorkloadLabel(workload), principal, EvaluatedAs(principal), team->local_queue, kQueueNameLabel));
  }
  if (queue != team->local_queue) {
    return absl::PermissionDeniedError(fmt::format(
        "{}: principal '{}'{} may submit to queue '{}' only, not '{}'", WorkloadLabel(workload),
        principal, EvaluatedAs(principal), team->local_queue, queue));
  }
  std::string field;
  const std::string cls = ClassOf(workload, &field);
  if (IsUndefinedClass(governance, cls)) {
    return absl::PermissionDeniedError(fmt::format("{}: {}: principal '{}'{} may not use priority class '{}'",
                                                   WorkloadLabel(workload), field, principal,
                                                   EvaluatedAs(principal), cls));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAccess(const AccessTable& access, const Governance& governance,
                         std::string_view principal, const WorkloadSpec& workload) {
  QM_RETURN_IF_ERROR(CheckNamespaceAccess(access, governance, principal, workload));
  return CheckQueueAndClass(access, governance, principal, workload);
}

bool MayReadClusterQueue(const AccessTable& access, const Governance& governance,
                         std::string_view principal, std::string_view cluster_queue) {
  if (IsAdmin(access, principal)) return true;
  for (const std::string& t : TeamsOf(access, principal)) {
    const Governance::Team* team = governance.FindTeam(t);
    if (team != nullptr && team->cluster_queue == cluster_queue) return true;
  }
  return false;
}

SubmissionGate MakeSubmissionGate(Governance governance, std::optional<AccessTable> access) {
  return [governance = std::move(governance), access = std::move(access)](
             std::string_view principal, const WorkloadSpec& workload) -> absl::Status {
    // As the API server would: authorization for the namespace first, then the admission policy,
    // then the rest of the access rule (own queue, defined class).
    const bool checked = access.has_value() && !principal.empty();
    if (checked) QM_RETURN_IF_ERROR(CheckNamespaceAccess(*access, governance, principal, workload));
    QM_RETURN_IF_ERROR(CheckSubmission(governance, workload));
    if (checked) QM_RETURN_IF_ERROR(CheckQueueAndClass(*access, governance, principal, workload));
    return absl::OkStatus();
  };
}

}  // namespace qm::hyperpod
