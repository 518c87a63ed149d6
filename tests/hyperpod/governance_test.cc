// HyperPod submission rules (governance.h): the admission policy of docs/hyperpod.md §2.9
// (queue-name label required, priority class must be defined) and the access rule of docs/hyperpod.md §8
// (a principal submits only for its teams; cross-account callers are evaluated as the role they
// assumed), and MakeSubmissionGate, which puts both in front of an Engine.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "qm/hyperpod/governance.h"
#include "qm/hyperpod/policy.h"

namespace qm::hyperpod {
namespace governance_test {
namespace {

constexpr char kTeamARole[] = "arn:aws:iam::111122223333:role/team-a-access";
constexpr char kTeamBRole[] = "arn:aws:iam::111122223333:role/team-b-access";
constexpr char kAdminRole[] = "arn:aws:iam::111122223333:role/Admin";

// Teams a (enabled), b (enabled) and c (ActivationState Disabled); classes inference and training.
PolicySet Policies() {
  PolicySet p;
  SchedulerConfigPolicy sc;
  sc.name = "policy";
  sc.priority_classes = {{"inference", 90}, {"training", 70}};
  p.scheduler = sc;
  for (const char* team : {"team-b", "team-a", "team-c"}) {
    ComputeQuotaPolicy q;
    q.name = std::string(team) + "-quota";
    q.team = team;
    q.enabled = std::string(team) != "team-c";
    p.quotas.push_back(q);
  }
  return p;
}

AccessTable Access() {
  AccessTable a;
  a.members = {{kTeamARole, {"team-a"}},
               {kTeamBRole, {"team-b"}},
               // A principal in two teams, given once per team binding.
               {"arn:aws:iam::111122223333:role/shared", {"team-b"}},
               {"arn:aws:iam::111122223333:role/shared", {"team-a", "team-b"}},
               // A group (the chart's namespace-level group) as principal.
               {"hyperpod-ns-team-c-namespace-level-group", {"team-c"}}};
  a.admins = {kAdminRole};
  return a;
}

// A workload in `ns`, labelled as HyperPod jobs are.
WorkloadSpec Job(std::string ns, std::string queue, std::string priority_class = "") {
  WorkloadSpec w;
  w.namespace_ = std::move(ns);
  w.name = "job";
  if (!queue.empty()) w.labels.emplace_back("kueue.x-k8s.io/queue-name", std::move(queue));
  if (!priority_class.empty()) w.labels.emplace_back("kueue.x-k8s.io/priority-class", std::move(priority_class));
  std::sort(w.labels.begin(), w.labels.end());
  return w;
}

std::string Message(const absl::Status& st) { return st.ok() ? "<ok>" : std::string(st.message()); }

TEST_CASE("Governance: FromPolicies lists teams sorted and the defined classes in policy order", "[hyperpod][governance]") {
  const Governance g = Governance::FromPolicies(Policies());
  REQUIRE(g.teams.size() == 3);
  CHECK(g.teams[0].team == "team-a");
  CHECK(g.teams[0].namespace_ == "hyperpod-ns-team-a");
  CHECK(g.teams[0].local_queue == "hyperpod-ns-team-a-localqueue");
  CHECK(g.teams[0].cluster_queue == "hyperpod-ns-team-a-clusterqueue");
  CHECK(g.teams[0].enabled);
  CHECK(g.teams[1].team == "team-b");
  CHECK(g.teams[2].team == "team-c");
  CHECK_FALSE(g.teams[2].enabled);
  CHECK(g.priority_classes == std::vector<std::string>{"inference-priority", "training-priority"});
  CHECK(g.FindTeam("team-b") == &g.teams[1]);
  CHECK(g.FindTeam("team-z") == nullptr);
  CHECK(g.FindNamespace("hyperpod-ns-team-c") == &g.teams[2]);
  CHECK(g.FindNamespace("team-c") == nullptr);
}

TEST_CASE("CheckSubmission: the queue-name label is required in a governed namespace", "[hyperpod][governance]") {
  const Governance g = Governance::FromPolicies(Policies());
  const std::string denied =
      "Workload/hyperpod-ns-team-a/job: metadata.labels[kueue.x-k8s.io/queue-name]: denied by "
      "ValidatingAdmissionPolicy hyperpod-task-governance-admission-policy: The label "
      "'kueue.x-k8s.io/queue-name' is either missing or does not have a value set.";
  SECTION("missing label: HyperPod's exact message") {
    const absl::Status st = CheckSubmission(g, Job("hyperpod-ns-team-a", ""));
    CHECK(st.code() == absl::StatusCode::kInvalidArgument);
    CHECK(Message(st) == denied);
  }
  SECTION("a label without value is missing too") {
    WorkloadSpec w = Job("hyperpod-ns-team-a", "");
    w.labels.emplace_back("kueue.x-k8s.io/queue-name", "");
    CHECK(Message(CheckSubmission(g, w)) == denied);
  }
  SECTION("the label, or spec.queueName of a Workload made from such a job, passes") {
    CHECK(CheckSubmission(g, Job("hyperpod-ns-team-a", "hyperpod-ns-team-a-localqueue")).ok());
    WorkloadSpec w = Job("hyperpod-ns-team-a", "");
    w.queue_name = "hyperpod-ns-team-a-localqueue";
    CHECK(CheckSubmission(g, w).ok());
  }
  SECTION("an ungoverned namespace is unaffected") {
    CHECK(CheckSubmission(g, Job("default", "")).ok());
    CHECK(CheckSubmission(g, Job("", "")).ok());  // "default"
    CHECK(CheckSubmission(g, Job("kube-system", "", "nope-priority")).ok());
  }
  SECTION("a disabled allocation's namespace is not governed") {
    CHECK(CheckSubmission(g, Job("hyperpod-ns-team-c", "")).ok());
    CHECK(CheckSubmission(g, Job("hyperpod-ns-team-c", "q", "nope-priority")).ok());
  }
}

TEST_CASE("CheckSubmission: the priority class must be defined", "[hyperpod][governance]") {
  const Governance g = Governance::FromPolicies(Policies());
  const std::string lq = "hyperpod-ns-team-a-localqueue";
  SECTION("no class: lowest priority, accepted") {
    CHECK(CheckSubmission(g, Job("hyperpod-ns-team-a", lq)).ok());
  }
  SECTION("a defined class") {
    CHECK(CheckSubmission(g, Job("hyperpod-ns-team-a", lq, "training-priority")).ok());
    CHECK(CheckSubmission(g, Job("hyperpod-ns-team-a", lq, "inference-priority")).ok());
  }
  SECTION("an unknown class: the error lists the defined classes") {
    const absl::Status st = CheckSubmission(g, Job("hyperpod-ns-team-a", lq, "urgent-priority"));
    CHECK(st.code() == absl::StatusCode::kInvalidArgument);
    CHECK(Message(st) ==
          "Workload/hyperpod-ns-team-a/job: metadata.labels[kueue.x-k8s.io/priority-class]: priority class "
          "'urgent-priority' is not defined; defined classes: inference-priority, training-priority");
    // The class name without the -priority suffix is not a class either.
    CHECK(Message(CheckSubmission(g, Job("hyperpod-ns-team-a", lq, "training"))) ==
          "Workload/hyperpod-ns-team-a/job: metadata.labels[kueue.x-k8s.io/priority-class]: priority class "
          "'training' is not defined; defined classes: inference-priority, training-priority");
  }
  SECTION("a WorkloadPriorityClass in spec.priorityClassName is checked too") {
    WorkloadSpec w = Job("hyperpod-ns-team-a", lq);
    w.priority_class = {PriorityClassSource::kWorkloadPriorityClass, "urgent-priority"};
    CHECK(Message(CheckSubmission(g, w)) ==
          "Workload/hyperpod-ns-team-a/job: spec.priorityClassName: priority class 'urgent-priority' is not "
          "defined; defined classes: inference-priority, training-priority");
    w.priority_class.name = "training-priority";
    CHECK(CheckSubmission(g, w).ok());
  }
  SECTION("FCFS cluster policy: any class is refused, saying why") {
    PolicySet p = Policies();
    p.scheduler->priority_classes.clear();
    const Governance fcfs = Governance::FromPolicies(p);
    CHECK(Message(CheckSubmission(fcfs, Job("hyperpod-ns-team-a", lq, "training-priority"))) ==
          "Workload/hyperpod-ns-team-a/job: metadata.labels[kueue.x-k8s.io/priority-class]: priority class "
          "'training-priority' is not defined; the cluster policy defines no priority classes (first-come "
          "first-serve), so omit the label");
    CHECK(CheckSubmission(fcfs, Job("hyperpod-ns-team-a", lq)).ok());
  }
}

TEST_CASE("EffectivePrincipal: an assumed-role session is its role", "[hyperpod][governance]") {
  CHECK(EffectivePrincipal("arn:aws:sts::111122223333:assumed-role/team-a-access/alice") == kTeamARole);
  // A session name with characters of its own.
  CHECK(EffectivePrincipal("arn:aws:sts::111122223333:assumed-role/team-a-access/alice@example.com") == kTeamARole);
  // No session part.
  CHECK(EffectivePrincipal("arn:aws:sts::111122223333:assumed-role/team-a-access") == kTeamARole);
  // Other partitions keep theirs.
  CHECK(EffectivePrincipal("arn:aws-cn:sts::111122223333:assumed-role/r/s") == "arn:aws-cn:iam::111122223333:role/r");
  CHECK(EffectivePrincipal("arn:aws-us-gov:sts::444455556666:assumed-role/r/s") ==
        "arn:aws-us-gov:iam::444455556666:role/r");
  // Everything else is itself.
  CHECK(EffectivePrincipal(kTeamARole) == kTeamARole);
  CHECK(EffectivePrincipal("arn:aws:iam::111122223333:user/bob") == "arn:aws:iam::111122223333:user/bob");
  CHECK(EffectivePrincipal("arn:aws:sts::111122223333:federated-user/bob") ==
        "arn:aws:sts::111122223333:federated-user/bob");
  CHECK(EffectivePrincipal("alice") == "alice");
  CHECK(EffectivePrincipal("hyperpod-ns-team-a-namespace-level-group") == "hyperpod-ns-team-a-namespace-level-group");
  CHECK(EffectivePrincipal("") == "");
}

TEST_CASE("TeamsOf and IsAdmin", "[hyperpod][governance]") {
  const AccessTable a = Access();
  CHECK(TeamsOf(a, kTeamARole) == std::vector<std::string>{"team-a"});
  // Bindings are merged, sorted and deduplicated.
  CHECK(TeamsOf(a, "arn:aws:iam::111122223333:role/shared") == std::vector<std::string>{"team-a", "team-b"});
  // A session of a member role is a member.
  CHECK(TeamsOf(a, "arn:aws:sts::111122223333:assumed-role/team-b-access/bob") == std::vector<std::string>{"team-b"});
  CHECK(TeamsOf(a, "hyperpod-ns-team-c-namespace-level-group") == std::vector<std::string>{"team-c"});
  CHECK(TeamsOf(a, "arn:aws:iam::999999999999:role/team-a-access").empty());  // another account's role
  CHECK(TeamsOf(a, "nobody").empty());
  CHECK(IsAdmin(a, kAdminRole));
  CHECK(IsAdmin(a, "arn:aws:sts::111122223333:assumed-role/Admin/root-session"));
  CHECK_FALSE(IsAdmin(a, kTeamARole));
  CHECK_FALSE(IsAdmin(a, "Admin"));
}

TEST_CASE("CheckAccess: the section 8 may_submit rule", "[hyperpod][governance]") {
  const Governance g = Governance::FromPolicies(Policies());
  const AccessTable a = Access();
  const WorkloadSpec own = Job("hyperpod-ns-team-a", "hyperpod-ns-team-a-localqueue", "training-priority");
  SECTION("a member of the team, into its namespace and queue") {
    CHECK(CheckAccess(a, g, kTeamARole, own).ok());
    CHECK(CheckAccess(a, g, kTeamARole, Job("hyperpod-ns-team-a", "hyperpod-ns-team-a-localqueue")).ok());
  }
  SECTION("another team's namespace is refused, naming the principal's teams") {
    const absl::Status st =
        CheckAccess(a, g, kTeamARole, Job("hyperpod-ns-team-b", "hyperpod-ns-team-b-localqueue"));
    CHECK(st.code() == absl::StatusCode::kPermissionDenied);
    CHECK(Message(st) ==
          "Workload/hyperpod-ns-team-b/job: principal 'arn:aws:iam::111122223333:role/team-a-access' may not submit "
          "to namespace 'hyperpod-ns-team-b': it belongs to team team-a");
    CHECK(Message(CheckAccess(a, g, "arn:aws:iam::111122223333:role/shared",
                              Job("hyperpod-ns-team-c", "hyperpod-ns-team-c-localqueue"))) ==
          "Workload/hyperpod-ns-team-c/job: principal 'arn:aws:iam::111122223333:role/shared' may not submit to "
          "namespace 'hyperpod-ns-team-c': it belongs to teams team-a, team-b");
    CHECK(Message(CheckAccess(a, g, "nobody", own)) ==
          "Workload/hyperpod-ns-team-a/job: principal 'nobody' may not submit to namespace 'hyperpod-ns-team-a': it "
          "belongs to no team");
  }
  SECTION("the wrong LocalQueue in its own namespace is refused") {
    const absl::Status st = CheckAccess(a, g, kTeamARole, Job("hyperpod-ns-team-a", "hyperpod-ns-team-b-localqueue"));
    CHECK(st.code() == absl::StatusCode::kPermissionDenied);
    CHECK(Message(st) ==
          "Workload/hyperpod-ns-team-a/job: principal 'arn:aws:iam::111122223333:role/team-a-access' may submit to "
          "queue 'hyperpod-ns-team-a-localqueue' only, not 'hyperpod-ns-team-b-localqueue'");
    CHECK(Message(CheckAccess(a, g, kTeamARole, Job("hyperpod-ns-team-a", ""))) ==
          "Workload/hyperpod-ns-team-a/job: principal 'arn:aws:iam::111122223333:role/team-a-access' must submit to "
          "queue 'hyperpod-ns-team-a-localqueue' (label kueue.x-k8s.io/queue-name), but names no queue");
  }
  SECTION("an undefined class is refused") {
    CHECK(Message(CheckAccess(a, g, kTeamARole,
                              Job("hyperpod-ns-team-a", "hyperpod-ns-team-a-localqueue", "urgent-priority"))) ==
          "Workload/hyperpod-ns-team-a/job: metadata.labels[kueue.x-k8s.io/priority-class]: principal "
          "'arn:aws:iam::111122223333:role/team-a-access' may not use priority class 'urgent-priority'");
  }
  SECTION("an administrator may submit anywhere") {
    CHECK(CheckAccess(a, g, kAdminRole, Job("hyperpod-ns-team-b", "hyperpod-ns-team-b-localqueue")).ok());
    CHECK(CheckAccess(a, g, kAdminRole, Job("default", "anything")).ok());
    CHECK(CheckAccess(a, g, "arn:aws:sts::111122223333:assumed-role/Admin/ops", Job("hyperpod-ns-team-a", "")).ok());
  }
  SECTION("a cross-account caller is evaluated as the cluster-account role it assumed") {
    // Setup: a data scientist of account 444455556666 assumed team-b's cluster access role in the
    // cluster account 111122223333 (S3). Expect: a team-b member; refusals say how it was evaluated.
    const std::string bob = "arn:aws:sts::111122223333:assumed-role/team-b-access/bob-from-444455556666";
    CHECK(CheckAccess(a, g, bob, Job("hyperpod-ns-team-b", "hyperpod-ns-team-b-localqueue")).ok());
    CHECK(Message(CheckAccess(a, g, bob, own)) ==
          "Workload/hyperpod-ns-team-a/job: principal "
          "'arn:aws:sts::111122223333:assumed-role/team-b-access/bob-from-444455556666' (evaluated as "
          "arn:aws:iam::111122223333:role/team-b-access) may not submit to namespace 'hyperpod-ns-team-a': it "
          "belongs to team team-b");
    // The caller's own-account role is not a member.
    CHECK(Message(CheckAccess(a, g, "arn:aws:sts::444455556666:assumed-role/data-scientist/bob",
                              Job("hyperpod-ns-team-b", "hyperpod-ns-team-b-localqueue"))) ==
          "Workload/hyperpod-ns-team-b/job: principal 'arn:aws:sts::444455556666:assumed-role/data-scientist/bob' "
          "(evaluated as arn:aws:iam::444455556666:role/data-scientist) may not submit to namespace "
          "'hyperpod-ns-team-b': it belongs to no team");
  }
  SECTION("a group principal") {
    CHECK(CheckAccess(a, g, "hyperpod-ns-team-c-namespace-level-group",
                      Job("hyperpod-ns-team-c", "hyperpod-ns-team-c-localqueue"))
              .ok());
  }
}

TEST_CASE("MayReadClusterQueue: own team's queue only, administrators all", "[hyperpod][governance]") {
  const Governance g = Governance::FromPolicies(Policies());
  const AccessTable a = Access();
  CHECK(MayReadClusterQueue(a, g, kTeamARole, "hyperpod-ns-team-a-clusterqueue"));
  CHECK_FALSE(MayReadClusterQueue(a, g, kTeamARole, "hyperpod-ns-team-b-clusterqueue"));
  CHECK(MayReadClusterQueue(a, g, "arn:aws:sts::111122223333:assumed-role/team-b-access/bob",
                            "hyperpod-ns-team-b-clusterqueue"));
  CHECK(MayReadClusterQueue(a, g, "arn:aws:iam::111122223333:role/shared", "hyperpod-ns-team-a-clusterqueue"));
  CHECK(MayReadClusterQueue(a, g, "arn:aws:iam::111122223333:role/shared", "hyperpod-ns-team-b-clusterqueue"));
  CHECK(MayReadClusterQueue(a, g, kAdminRole, "hyperpod-ns-team-b-clusterqueue"));
  CHECK(MayReadClusterQueue(a, g, kAdminRole, "hyperpod-ns-idle-resource-sharing-cq-1"));
  CHECK_FALSE(MayReadClusterQueue(a, g, "nobody", "hyperpod-ns-team-a-clusterqueue"));
  CHECK_FALSE(MayReadClusterQueue(a, g, kTeamARole, "hyperpod-ns-idle-resource-sharing-cq-1"));
}

TEST_CASE("Governance: the submission gate checks namespace, then admission policy, then queue and class",
          "[hyperpod][governance][gate]") {
  const SubmissionGate gate = MakeSubmissionGate(Governance::FromPolicies(Policies()), Access());
  // An outsider learns only that the namespace is not theirs, whatever else is wrong.
  CHECK(Message(gate(kTeamBRole, Job("hyperpod-ns-team-a", ""))) ==
        "Workload/hyperpod-ns-team-a/job: principal 'arn:aws:iam::111122223333:role/team-b-access' may not "
        "submit to namespace 'hyperpod-ns-team-a': it belongs to team team-b");
  // A member gets HyperPod's admission-policy messages before the access rule's queue check.
  CHECK(Message(gate(kTeamARole, Job("hyperpod-ns-team-a", ""))) ==
        "Workload/hyperpod-ns-team-a/job: metadata.labels[kueue.x-k8s.io/queue-name]: denied by "
        "ValidatingAdmissionPolicy hyperpod-task-governance-admission-policy: The label "
        "'kueue.x-k8s.io/queue-name' is either missing or does not have a value set.");
  CHECK(Message(gate(kTeamARole, Job("hyperpod-ns-team-a", "hyperpod-ns-team-a-localqueue", "urgent-priority"))) ==
        "Workload/hyperpod-ns-team-a/job: metadata.labels[kueue.x-k8s.io/priority-class]: priority class "
        "'urgent-priority' is not defined; defined classes: inference-priority, training-priority");
  CHECK(Message(gate(kTeamARole, Job("hyperpod-ns-team-a", "hyperpod-ns-team-b-localqueue"))) ==
        "Workload/hyperpod-ns-team-a/job: principal 'arn:aws:iam::111122223333:role/team-a-access' may submit to "
        "queue 'hyperpod-ns-team-a-localqueue' only, not 'hyperpod-ns-team-b-localqueue'");
  CHECK(gate(kTeamARole, Job("hyperpod-ns-team-a", "hyperpod-ns-team-a-localqueue", "training-priority")).ok());
  CHECK(gate(kAdminRole, Job("hyperpod-ns-team-b", "hyperpod-ns-team-b-localqueue")).ok());
  // The embedding program's own submissions (no principal) face the admission policy only.
  CHECK(gate("", Job("hyperpod-ns-team-a", "hyperpod-ns-team-a-localqueue")).ok());
  CHECK(gate("", Job("hyperpod-ns-team-a", "")).code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Governance: without an access table the gate is HyperPod's admission policy alone",
          "[hyperpod][governance][gate]") {
  const SubmissionGate gate = MakeSubmissionGate(Governance::FromPolicies(Policies()));
  CHECK(gate("anyone", Job("hyperpod-ns-team-a", "hyperpod-ns-team-a-localqueue")).ok());
  CHECK(gate("anyone", Job("hyperpod-ns-team-b", "")).code() == absl::StatusCode::kInvalidArgument);
  CHECK(gate("anyone", Job("default", "")).ok());  // an ungoverned namespace
  CHECK(gate("anyone", Job("hyperpod-ns-team-c", "")).ok());  // a disabled allocation's namespace
}

}  // namespace
}  // namespace governance_test
}  // namespace qm::hyperpod
