// Who may submit where on a HyperPod-governed cluster: the policies of this folder, an access table
// (which IAM role belongs to which team) and a few submissions, some refused.
//
//   governed_submissions examples/hyperpod/policy/*.json examples/hyperpod/policy/cluster.yaml
//
// Prints one line per submission and the admissions of one scheduling cycle. Exits 1 if a
// submission is not decided as its comment says (the example is also a test).
#include <cstdio>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "qm/qm.h"

namespace {

using qm::hyperpod::AccessTable;

// One worker pod set asking for `gpus` one-GPU workers, labelled as HyperPod jobs are.
qm::WorkloadSpec Job(std::string team, std::string name, int gpus, std::string priority_class,
                     bool with_queue_label = true) {
  qm::WorkloadSpec w;
  w.namespace_ = qm::hyperpod::TeamNamespace(team);
  w.name = std::move(name);
  if (with_queue_label) w.labels.emplace_back("kueue.x-k8s.io/queue-name", qm::hyperpod::TeamLocalQueue(team));
  if (!priority_class.empty()) w.labels.emplace_back("kueue.x-k8s.io/priority-class", std::move(priority_class));
  qm::PodSetSpec worker;
  worker.name = "worker";
  worker.count = gpus;
  worker.requests = {{"nvidia.com/gpu", 1}};
  w.pod_sets.push_back(std::move(worker));
  return w;
}

struct Submission {
  const char* why;
  std::string principal;
  qm::WorkloadSpec workload;
  bool accepted;  // what the access rule and admission policy must decide
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s POLICY_FILE...\n", argv[0]);
    return 2;
  }
  // 1. The policies, in the AWS API's JSON (and our inventory YAML), merged into one set.
  qm::hyperpod::PolicySet policies;
  for (int i = 1; i < argc; ++i) {
    absl::StatusOr<qm::hyperpod::PolicyDocument> doc = qm::hyperpod::ReadPolicyFile(argv[i]);
    if (!doc.ok()) {
      std::fprintf(stderr, "%s\n", std::string(doc.status().message()).c_str());
      return 2;
    }
    if (absl::Status st = qm::hyperpod::MergePolicies(policies, std::move(doc->policies)); !st.ok()) {
      std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
      return 2;
    }
  }
  absl::StatusOr<qm::hyperpod::Translation> kueue = qm::hyperpod::Translate(policies);
  if (!kueue.ok()) {
    std::fprintf(stderr, "%s\n", std::string(kueue.status().message()).c_str());
    return 2;
  }

  // 2. Who belongs to which team: each team's cluster-access role in the cluster's account
  //    (111122223333). Data scientists of account 444455556666 assume these roles.
  AccessTable access;
  access.members = {{"arn:aws:iam::111122223333:role/team-a-cluster-access", {"team-a"}},
                    {"arn:aws:iam::111122223333:role/team-b-cluster-access", {"team-b"}}};
  access.admins = {"arn:aws:iam::111122223333:role/Admin"};

  // 3. The engine, with HyperPod's Kueue configuration and the submission gate.
  qm::EngineConfig config;
  config.fair_sharing = kueue->fair_sharing;
  config.message_style = qm::MessageStyle::kLegacy;
  config.submission_gate =
      qm::hyperpod::MakeSubmissionGate(qm::hyperpod::Governance::FromPolicies(policies), access);
  absl::StatusOr<qm::Engine> created = qm::Engine::Create(config);
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", std::string(created.status().message()).c_str());
    return 2;
  }
  qm::Engine& engine = *created;
  if (absl::Status st = engine.Apply(kueue->objects); !st.ok()) {
    std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
    return 2;
  }

  const std::string alice = "arn:aws:sts::111122223333:assumed-role/team-a-cluster-access/alice";
  // bob works in another account and assumed team-b's access role: he is evaluated as that role.
  const std::string bob = "arn:aws:sts::111122223333:assumed-role/team-b-cluster-access/bob";
  const std::string admin = "arn:aws:sts::111122223333:assumed-role/Admin/carol";
  std::vector<Submission> submissions;
  submissions.push_back({"alice trains for team-a", alice, Job("team-a", "train", 2, "training-priority"), true});
  submissions.push_back({"bob submits into team-a's namespace", bob, Job("team-a", "sneaky", 2, ""), false});
  submissions.push_back({"bob forgets the queue label", bob, Job("team-b", "unlabelled", 1, "", false), false});
  submissions.push_back({"bob names a class the policy does not define", bob,
                         Job("team-b", "urgent", 1, "urgent-priority"), false});
  submissions.push_back({"bob runs inference for team-b", bob, Job("team-b", "serve", 1, "inference-priority"), true});
  submissions.push_back({"an administrator submits for team-b", admin, Job("team-b", "eval", 1, ""), true});
  // dave's own role in the data-science account was never granted cluster access.
  submissions.push_back({"dave submits without assuming a team role",
                         "arn:aws:sts::444455556666:assumed-role/DataScientist/dave",
                         Job("team-b", "notebook", 1, ""), false});

  int wrong = 0;
  for (const Submission& s : submissions) {
    absl::StatusOr<qm::WorkloadHandle> id = engine.SubmitAs(s.principal, s.workload);
    fmt::print("{:<48} {}\n", s.why, id.ok() ? "accepted" : "refused: " + std::string(id.status().message()));
    if (id.ok() != s.accepted) {
      fmt::print("  ^ expected {}\n", s.accepted ? "accepted" : "refused");
      ++wrong;
    }
  }
  // A refused submission leaves nothing behind: only the three accepted jobs exist.
  if (engine.Workloads().size() != 3) {
    fmt::print("expected 3 workloads, the engine holds {}\n", engine.Workloads().size());
    ++wrong;
  }

  const qm::CycleResult& cycle = engine.ScheduleCycle();
  for (const qm::Decision& d : cycle.decisions) {
    if (d.kind == qm::Decision::Kind::kAdmitted) fmt::print("admitted {}\n", engine.WorkloadName(d.workload));
  }
  return wrong == 0 ? 0 : 1;
}
