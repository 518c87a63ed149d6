// The compiled-in instance catalogue (instance_catalog.h).
//
// Where the expected figures come from: `shared/data/instance-types.csv` as of this test's writing
// (205 rows: the 201 `ClusterInstanceType` values of the SageMaker API model plus four `ml.inf2.*`
// sizes; sources in `shared/data/instance-types.md`: EC2 DescribeInstanceTypes data via
// aws/karpenter-provider-aws, the HyperPod CLI's INSTANCE_RESOURCES and INSTANCE_TYPE_MIG_PROFILES).
// Tests must run on a clean clone, where `shared/` may be absent, so instead of reading the CSV they
// check named rows copied from it and a fingerprint (row counts and column sums) computed from it:
//   python3 -c 'import csv; c=list(csv.DictReader(open("instance-types.csv"))); ...'
// A change to any number of the catalogue moves at least one sum.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "qm/hyperpod/instance_catalog.h"

namespace qm::hyperpod {
namespace instance_catalog_test {
namespace {

// One CSV row: instance_type,accelerator_type,accelerators,neuron_devices,vcpu,memory_gib,efa.
struct Row {
  std::string_view name;
  std::string_view accelerator_type;
  int32_t accelerators;
  int32_t neuron_devices;
  int32_t vcpu;
  int64_t memory_mib;
  int32_t efa;
  bool efa_known;
};

void CheckRow(const Row& want) {
  INFO(want.name);
  const InstanceType* t = FindInstanceType(want.name);
  REQUIRE(t != nullptr);
  CHECK(t->name == want.name);
  CHECK(t->accelerator_type == want.accelerator_type);
  CHECK(t->accelerators == want.accelerators);
  CHECK(t->neuron_devices == want.neuron_devices);
  CHECK(t->vcpu == want.vcpu);
  CHECK(t->memory_mib == want.memory_mib);
  CHECK(t->efa == want.efa);
  CHECK(t->efa_known == want.efa_known);
}

TEST_CASE("InstanceCatalog: named rows match the CSV", "[hyperpod][catalog]") {
  // Expect: each row exactly as in instance-types.csv (memory GiB × 1024 = MiB).
  CheckRow({"ml.g5.8xlarge", "NVIDIA A10G", 1, 0, 32, 128 * 1024, 1, true});
  CheckRow({"ml.g5.12xlarge", "NVIDIA A10G", 4, 0, 48, 192 * 1024, 1, true});
  CheckRow({"ml.g5.2xlarge", "NVIDIA A10G", 1, 0, 8, 32 * 1024, 0, true});
  CheckRow({"ml.g6.12xlarge", "NVIDIA L4", 4, 0, 48, 192 * 1024, 1, true});
  CheckRow({"ml.p5.48xlarge", "NVIDIA H100", 8, 0, 192, 2048 * 1024, 32, true});
  CheckRow({"ml.p5en.48xlarge", "NVIDIA H200", 8, 0, 192, 2048 * 1024, 16, true});
  CheckRow({"ml.p4d.24xlarge", "NVIDIA A100 40GB", 8, 0, 96, 1152 * 1024, 4, true});
  CheckRow({"ml.trn1.32xlarge", "AWS Trainium", 16, 16, 128, 512 * 1024, 8, true});
  CheckRow({"ml.trn2.3xlarge", "AWS Trainium2", 1, 1, 12, 128 * 1024, 1, true});
  CheckRow({"ml.c5.2xlarge", "", 0, 0, 8, 16 * 1024, 0, true});
  CheckRow({"ml.m5.xlarge", "", 0, 0, 4, 16 * 1024, 0, true});
  CheckRow({"ml.m5.12xlarge", "", 0, 0, 48, 192 * 1024, 0, true});
  // The one fractional memory figure: 5.25 GiB.
  CheckRow({"ml.c5n.large", "", 0, 0, 2, 5376, 0, true});
  // The one row without an EFA figure (the HyperPod CLI's 0 conflicts with the type's EFA support).
  CheckRow({"ml.p6e-gb200.36xlarge", "NVIDIA GB200", 4, 0, 144, 960 * 1024, 0, false});
  CheckRow({"ml.inf2.xlarge", "AWS Inferentia2", 1, 1, 4, 16 * 1024, 0, true});
}

TEST_CASE("InstanceCatalog: fingerprint of the whole CSV", "[hyperpod][catalog]") {
  // Setup: counts and column sums computed from instance-types.csv. Expect: the same from the
  // compiled table, so a dropped row or any changed number is caught.
  const auto types = InstanceTypes();
  CHECK(types.size() == 205);
  int64_t accelerators = 0, neuron = 0, vcpu = 0, memory_mib = 0, efa = 0;
  int cpu_only = 0, gpu = 0, neuron_types = 0, efa_unknown = 0, quota_allowed = 0;
  for (const InstanceType& t : types) {
    accelerators += t.accelerators;
    neuron += t.neuron_devices;
    vcpu += t.vcpu;
    memory_mib += t.memory_mib;
    efa += t.efa;
    cpu_only += t.accelerator_type.empty() ? 1 : 0;
    gpu += t.is_gpu() ? 1 : 0;
    neuron_types += t.is_neuron() ? 1 : 0;
    efa_unknown += t.efa_known ? 0 : 1;
    quota_allowed += t.quota_allowed() ? 1 : 0;
  }
  CHECK(accelerators == 221);
  CHECK(neuron == 69);
  CHECK(vcpu == 9972);
  CHECK(memory_mib == 57780480);
  CHECK(efa == 202);
  CHECK(cpu_only == 150);
  CHECK(gpu == 47);
  CHECK(neuron_types == 8);
  CHECK(efa_unknown == 1);
  CHECK(quota_allowed == 201);  // the ClusterInstanceType enum of the API model
}

TEST_CASE("InstanceCatalog: invariants of every row", "[hyperpod][catalog]") {
  for (const InstanceType& t : InstanceTypes()) {
    INFO(t.name);
    CHECK(t.name.starts_with("ml."));
    CHECK(t.vcpu > 0);
    CHECK(t.memory_mib > 0);
    CHECK(t.accelerators >= 0);
    CHECK(t.efa >= 0);
    // CPU-only types have no accelerator model and no accelerators, and vice versa.
    CHECK(t.accelerator_type.empty() == (t.accelerators == 0));
    // Neuron devices exist only on AWS chips, one per chip.
    if (t.neuron_devices > 0) {
      CHECK(t.accelerator_type.starts_with("AWS "));
      CHECK(t.neuron_devices == t.accelerators);
    } else if (t.accelerators > 0) {
      CHECK(t.accelerator_type.starts_with("NVIDIA "));
    }
    CHECK((t.efa_known || t.efa == 0));
    // Lookups find each row at itself.
    CHECK(FindInstanceType(t.name) == &t);
  }
}

TEST_CASE("InstanceCatalog: sorted by name with unique names", "[hyperpod][catalog]") {
  const auto types = InstanceTypes();
  for (size_t i = 1; i < types.size(); ++i) {
    INFO(types[i - 1].name << " before " << types[i].name);
    CHECK(types[i - 1].name < types[i].name);
  }
}

TEST_CASE("InstanceCatalog: lookups of unknown names", "[hyperpod][catalog]") {
  CHECK(FindInstanceType("") == nullptr);
  CHECK(FindInstanceType("g5.8xlarge") == nullptr);      // the EC2 name, without ml.
  CHECK(FindInstanceType("ml.g5.8xlarg") == nullptr);    // a prefix of a row
  CHECK(FindInstanceType("ml.g5.8xlargee") == nullptr);  // a row as prefix
  CHECK(FindInstanceType("ML.G5.8XLARGE") == nullptr);   // names are case-sensitive
  CHECK(FindInstanceType("zz.last") == nullptr);         // after the last row
  CHECK(FindInstanceType("a.first") == nullptr);         // before the first row
}

TEST_CASE("InstanceCatalog: ml.inf2 sizes are catalogued but not quota types", "[hyperpod][catalog]") {
  // Setup: the four ml.inf2 sizes are in the CSV, not in the API's ClusterInstanceType enum.
  std::vector<std::string_view> inf2;
  for (const InstanceType& t : InstanceTypes()) {
    if (t.name.starts_with("ml.inf2.")) {
      inf2.push_back(t.name);
      CHECK_FALSE(t.quota_allowed());
      CHECK(t.is_neuron());
    }
  }
  CHECK(inf2 == std::vector<std::string_view>{"ml.inf2.24xlarge", "ml.inf2.48xlarge", "ml.inf2.8xlarge",
                                              "ml.inf2.xlarge"});
  // Trainium is a quota type and counts Neuron devices.
  const InstanceType* trn = FindInstanceType("ml.trn1.32xlarge");
  REQUIRE(trn != nullptr);
  CHECK(trn->quota_allowed());
  CHECK(trn->is_neuron());
  CHECK_FALSE(trn->is_gpu());
  const InstanceType* g5 = FindInstanceType("ml.g5.8xlarge");
  REQUIRE(g5 != nullptr);
  CHECK(g5->is_gpu());
  CHECK_FALSE(g5->is_neuron());
  const InstanceType* c5 = FindInstanceType("ml.c5.2xlarge");
  REQUIRE(c5 != nullptr);
  CHECK_FALSE(c5->is_gpu());
  CHECK_FALSE(c5->is_neuron());
}

TEST_CASE("InstanceCatalog: MIG profiles per type", "[hyperpod][catalog]") {
  // Expect: the HyperPod CLI's INSTANCE_TYPE_MIG_PROFILES, in its order.
  using Profiles = std::vector<std::string_view>;
  CHECK(MigProfilesOf("ml.p5.48xlarge") ==
        Profiles{"mig-1g.10gb", "mig-1g.20gb", "mig-2g.20gb", "mig-3g.40gb", "mig-4g.40gb", "mig-7g.80gb"});
  CHECK(MigProfilesOf("ml.p4d.24xlarge") ==
        Profiles{"mig-1g.5gb", "mig-1g.10gb", "mig-2g.10gb", "mig-3g.20gb", "mig-4g.20gb", "mig-7g.40gb"});
  // p4de has A100 80GB GPUs: the 80 GB profiles (the CLI's training constants).
  CHECK(MigProfilesOf("ml.p4de.24xlarge") ==
        Profiles{"mig-1g.10gb", "mig-1g.20gb", "mig-2g.20gb", "mig-3g.40gb", "mig-4g.40gb", "mig-7g.80gb"});
  CHECK(MigProfilesOf("ml.p5en.48xlarge") ==
        Profiles{"mig-1g.18gb", "mig-1g.35gb", "mig-2g.35gb", "mig-3g.71gb", "mig-4g.71gb", "mig-7g.141gb"});
  // Listed under its ml. name although the CLI's key lacks the prefix.
  CHECK(MigProfilesOf("ml.p6-b200.48xlarge").size() == 6);
  CHECK(MigProfilesOf("ml.p6-b200.48xlarge").back() == "mig-7g.180gb");
  CHECK(MigProfilesOf("p6-b200.48xlarge").empty());
  // Types without MIG.
  CHECK(MigProfilesOf("ml.g5.8xlarge").empty());
  CHECK(MigProfilesOf("ml.c5.2xlarge").empty());
  CHECK(MigProfilesOf("ml.nope").empty());
  // Every type with profiles is a catalogued NVIDIA type.
  int with_mig = 0;
  for (const InstanceType& t : InstanceTypes()) {
    if (MigProfilesOf(t.name).empty()) continue;
    ++with_mig;
    CHECK(t.is_gpu());
  }
  CHECK(with_mig == 8);
}

}  // namespace
}  // namespace instance_catalog_test
}  // namespace qm::hyperpod
