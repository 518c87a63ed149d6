/* c_api.growth: the ABI rules of API version 3 (docs/c-api.md §ABI rules) and what version 3 added.
 * A program built against an older struct layout (a smaller `version`) still works and gets the
 * defaults of the fields added since; events come as pointers; QM_NO_WORKLOAD is "no preemptor";
 * a deleted workload's event names it; qm_engine_run_until_settled says whether it settled; and
 * the functions that mirror the C++ Engine (deactivate/activate, reclaimable pods, flavor
 * assignment, preemption targets, cohorts). Compiled as C11; under QM_SANITIZE with ASan, which
 * catches the library reading or writing past an old, smaller struct (they are malloc'ed to their
 * exact size). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qm/c/quartermaster.h"

static int failures = 0;

#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                      \
    }                                                                  \
  } while (0)

#define OK(engine, call)                                                                   \
  do {                                                                                     \
    qm_status st_ = (call);                                                                \
    if (st_ != QM_OK) {                                                                    \
      fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call, qm_status_name(st_), \
              qm_engine_last_error(engine));                                               \
      ++failures;                                                                          \
    }                                                                                      \
  } while (0)

/* The layouts of version 1 of the two structs that have a version 2: what a program compiled
 * against the header that predates `inactive` and `settled` passes. */
typedef struct workload_v1 {
  unsigned int version;
  const char* namespace_name;
  const char* name;
  const char* queue_name;
  const char* priority_class;
  int has_priority;
  int32_t priority;
  int64_t creation_time_unix_micros;
  const qm_pod_set* pod_sets;
  size_t pod_set_count;
} workload_v1;

typedef struct cycle_summary_v1 {
  unsigned int version;
  uint64_t cycle;
  int64_t cycles;
  int64_t admitted;
  int64_t preempted;
  int64_t pending;
} cycle_summary_v1;

/* Two ClusterQueues of 4 cpu in cohort "pool" (reclaim Any), a LocalQueue "q" in each namespace. */
static const char* kCluster =
    "- {kind: Namespace, metadata: {name: a}}\n"
    "- {kind: Namespace, metadata: {name: b}}\n"
    "- {kind: ResourceFlavor, metadata: {name: f}}\n"
    "- kind: ClusterQueue\n"
    "  metadata: {name: cq-a}\n"
    "  spec: {cohort: pool, namespaceSelector: {}, preemption: {reclaimWithinCohort: Any},\n"
    "         resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]}]}\n"
    "- kind: ClusterQueue\n"
    "  metadata: {name: cq-b}\n"
    "  spec: {cohort: pool, namespaceSelector: {}, preemption: {reclaimWithinCohort: Any},\n"
    "         resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]}]}\n"
    "- {kind: LocalQueue, metadata: {namespace: a, name: q}, spec: {clusterQueue: cq-a}}\n"
    "- {kind: LocalQueue, metadata: {namespace: b, name: q}, spec: {clusterQueue: cq-b}}\n";

static qm_engine* NewEngine(void) {
  qm_engine_options options = QM_ENGINE_OPTIONS_INIT;
  options.start_time_unix_micros = 1704067200000000LL;
  qm_engine* e = NULL;
  if (qm_engine_create(&options, &e) != QM_OK) {
    fprintf(stderr, "create: %s\n", qm_last_error());
    exit(1);
  }
  OK(e, qm_engine_apply_yaml(e, kCluster, "cluster.yaml"));
  return e;
}

static uint64_t Submit(qm_engine* e, const char* ns, const char* name, int32_t pods, int64_t cpu) {
  qm_resource_amount request = {"cpu", cpu};
  qm_pod_set pod_set = {"main", pods, 0, &request, 1};
  qm_workload w = QM_WORKLOAD_INIT;
  w.namespace_name = ns;
  w.name = name;
  w.queue_name = "q";
  w.pod_sets = &pod_set;
  w.pod_set_count = 1;
  uint64_t handle = QM_NO_WORKLOAD;
  OK(e, qm_engine_submit(e, &w, &handle));
  return handle;
}

static int JsonHas(qm_engine* e, char* json, const char* needle) {
  const int found = json != NULL && strstr(json, needle) != NULL;
  if (!found) fprintf(stderr, "missing %s in %s (%s)\n", needle, json ? json : "NULL", qm_engine_last_error(e));
  qm_free(json);
  return found;
}

static char* WorkloadJson(qm_engine* e, const char* ns, const char* name) {
  char* json = NULL;
  OK(e, qm_engine_workload_json(e, ns, name, &json));
  return json;
}

/* Item 11: old layouts work and get defaults; bad versions are refused with a message. */
static void TestOldLayouts(void) {
  qm_engine* e = NewEngine();
  qm_resource_amount request = {"cpu", 1000};
  qm_pod_set pod_set = {"main", 1, 0, &request, 1};

  /* A version-1 workload, allocated to its exact size: the library must not read `inactive`. */
  workload_v1* old = malloc(sizeof(workload_v1));
  memset(old, 0, sizeof(*old));
  old->version = 1;
  old->namespace_name = "a";
  old->name = "old";
  old->queue_name = "q";
  old->pod_sets = &pod_set;
  old->pod_set_count = 1;
  OK(e, qm_engine_submit(e, (const qm_workload*)old, NULL));
  free(old);
  CHECK(JsonHas(e, WorkloadJson(e, "a", "old"), "\"state\": \"Pending\""));  /* default: active */

  /* The current layout with the new field set. */
  qm_workload fresh = QM_WORKLOAD_INIT;
  fresh.namespace_name = "a";
  fresh.name = "inactive";
  fresh.queue_name = "q";
  fresh.pod_sets = &pod_set;
  fresh.pod_set_count = 1;
  fresh.inactive = 1;
  OK(e, qm_engine_submit(e, &fresh, NULL));
  CHECK(JsonHas(e, WorkloadJson(e, "a", "inactive"), "\"state\": \"Inactive\""));

  /* A version-1 summary: filled, nothing written past it (ASan; a guard in other builds). */
  struct {
    cycle_summary_v1 summary;
    int guard[4];
  }* old_summary = malloc(sizeof(*old_summary));
  memset(old_summary, 0, sizeof(*old_summary));
  old_summary->summary.version = 1;
  old_summary->guard[0] = old_summary->guard[1] = 0x5a5a5a5a;
  cycle_summary_v1* exact = malloc(sizeof(cycle_summary_v1));
  memset(exact, 0, sizeof(*exact));
  exact->version = 1;
  OK(e, qm_engine_schedule_cycle(e, (qm_cycle_summary*)&old_summary->summary));
  CHECK(old_summary->summary.cycle == 1 && old_summary->summary.admitted == 1);
  CHECK(old_summary->guard[0] == 0x5a5a5a5a && old_summary->guard[1] == 0x5a5a5a5a);
  OK(e, qm_engine_run_until_settled(e, 10, (qm_cycle_summary*)exact));
  CHECK(exact->cycles >= 1);
  free(exact);
  free(old_summary);

  /* Version 0 (a zeroed struct) and a version newer than the library are refused, by name. */
  qm_workload zeroed;
  memset(&zeroed, 0, sizeof(zeroed));
  zeroed.name = "z";
  zeroed.queue_name = "q";
  CHECK(qm_engine_submit(e, &zeroed, NULL) == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_engine_last_error(e), "QM_WORKLOAD_INIT") != NULL);
  qm_cycle_summary future = QM_CYCLE_SUMMARY_INIT;
  future.version = QM_CYCLE_SUMMARY_VERSION + 1;
  CHECK(qm_engine_schedule_cycle(e, &future) == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_engine_last_error(e), "newer than this library") != NULL);
  qm_engine_options zero_options;
  memset(&zero_options, 0, sizeof(zero_options));
  qm_engine* none = NULL;
  CHECK(qm_engine_create(&zero_options, &none) == QM_INVALID_ARGUMENT && none == NULL);
  CHECK(strstr(qm_last_error(), "QM_ENGINE_OPTIONS_INIT") != NULL);
  qm_simulate_options sim = QM_SIMULATE_OPTIONS_INIT;
  sim.version = 0;
  char* json = NULL;
  CHECK(qm_simulate("a: 1", "x", NULL, &sim, &json) != QM_OK && json == NULL);
  qm_engine_destroy(e);
}

/* Item 12: the preemptor sentinel, the deleted workload's name, whether a run settled. */
static void TestEvents(void) {
  qm_engine* e = NewEngine();
  /* The engine's first workload has handle 0, which "no preemptor" must not be. */
  const uint64_t borrower = Submit(e, "b", "borrower", 8, 1000);
  CHECK(borrower == 0);
  int cycles = 0;
  OK(e, qm_engine_run_until_stable(e, 10, &cycles));
  const qm_event* const* events = NULL;
  size_t n = 0;
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(n == 1 && events[0]->kind == QM_EVENT_ADMITTED && events[0]->preemptor == QM_NO_WORKLOAD);
  CHECK(n == 1 && events[0]->pod_set_count == 1 && events[0]->pod_sets[0]->count == 8 &&
        strcmp(events[0]->pod_sets[0]->flavors[0]->flavor, "f") == 0);

  /* cq-a reclaims its 4 cpu: the borrower is preempted by `owner`. */
  const uint64_t owner = Submit(e, "a", "owner", 4, 1000);
  OK(e, qm_engine_run_until_stable(e, 10, &cycles));
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(n >= 1 && events[0]->kind == QM_EVENT_PREEMPTED && events[0]->workload == borrower &&
        events[0]->preemptor == owner && strcmp(events[0]->preemptor_name, "a/owner") == 0);
  char* json = NULL;
  OK(e, qm_engine_events_json(e, &json));
  CHECK(JsonHas(e, json, "\"preemptorHandle\": 1"));

  /* A deleted workload's event still names it, in the struct and in JSON. */
  OK(e, qm_engine_delete_workload(e, "b", "borrower"));
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(n == 1 && events[0]->kind == QM_EVENT_DELETED &&
        strcmp(events[0]->workload_name, "b/borrower") == 0);
  OK(e, qm_engine_events_json(e, &json));
  CHECK(JsonHas(e, json, "\"workload\": \"b/borrower\""));
  Submit(e, "b", "gone", 1, 1000);
  CHECK(qm_engine_delete_workload_h(e, 0) == QM_NOT_FOUND);  /* stale: borrower's handle */
  uint64_t gone = 0;
  OK(e, qm_engine_find_workload(e, "b", "gone", &gone));
  OK(e, qm_engine_delete_workload_h(e, gone));
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(n == 1 && strcmp(events[0]->workload_name, "b/gone") == 0);
  qm_engine_destroy(e);

  /* Settled or stopped at max_cycles: one admission per cycle, four workloads. */
  e = NewEngine();
  for (int i = 0; i < 4; ++i) {
    char name[8];
    snprintf(name, sizeof(name), "w%d", i);
    Submit(e, "a", name, 1, 1000);
  }
  qm_cycle_summary summary = QM_CYCLE_SUMMARY_INIT;
  OK(e, qm_engine_run_until_settled(e, 2, &summary));
  CHECK(summary.cycles == 2 && summary.admitted == 2 && summary.settled == 0);
  OK(e, qm_engine_run_until_settled(e, 100, &summary));
  CHECK(summary.cycles == 3 && summary.admitted == 2 && summary.settled == 1 && summary.cycle == 5);
  CHECK(qm_engine_run_until_settled(e, 100, NULL) == QM_INVALID_ARGUMENT);
  qm_engine_destroy(e);
}

/* Item 13: what the C++ Engine had and the C API lacked. */
static void TestEngineMirror(void) {
  qm_engine* e = NewEngine();
  const uint64_t w = Submit(e, "a", "w", 2, 1000);
  OK(e, qm_engine_deactivate(e, "a", "w"));
  const qm_event* const* events = NULL;
  size_t n = 0;
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(n == 1 && events[0]->kind == QM_EVENT_DEACTIVATED);
  CHECK(JsonHas(e, WorkloadJson(e, "a", "w"), "\"state\": \"Inactive\""));
  OK(e, qm_engine_activate_h(e, w));
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(n == 1 && events[0]->kind == QM_EVENT_ACTIVATED);
  OK(e, qm_engine_deactivate_h(e, w));
  OK(e, qm_engine_activate(e, "a", "w"));

  /* The flavors the next cycle would choose. */
  char* json = NULL;
  OK(e, qm_engine_assign_flavors_json(e, "a", "w", NULL, &json));
  CHECK(JsonHas(e, json, "\"mode\": \"Fit\""));
  OK(e, qm_engine_run_until_stable(e, 10, NULL));

  /* Reclaimable pods: one of the two pods finished, 1 cpu goes back. */
  OK(e, qm_engine_set_reclaimable_pods(e, "a", "w", NULL, 1));
  OK(e, qm_engine_cluster_queue_json(e, "cq-a", &json));
  CHECK(JsonHas(e, json, "\"usage\": 1000"));
  CHECK(qm_engine_set_reclaimable_pods_h(e, w, "main", 5) != QM_OK);
  CHECK(qm_engine_set_reclaimable_pods_h(e, w, "main", 2) == QM_OK);

  /* Preemption targets: b borrows all of cq-a's quota; a pending owner in cq-a would reclaim. */
  Submit(e, "b", "borrower", 8, 1000);
  OK(e, qm_engine_run_until_stable(e, 10, NULL));
  Submit(e, "a", "owner", 4, 1000);
  OK(e, qm_engine_preemption_targets_json(e, "a", "owner", NULL, &json));
  CHECK(JsonHas(e, json, "\"victim\": \"b/borrower\""));
  qm_requested_flavor wanted = {"main", "cpu", "f", 1};
  qm_preemption_query query = QM_PREEMPTION_QUERY_INIT;
  query.flavors = &wanted;
  query.flavor_count = 1;
  OK(e, qm_engine_preemption_targets_json(e, "a", "owner", &query, &json));
  CHECK(JsonHas(e, json, "\"reason\": \"InCohortReclamation\""));
  wanted.mode = 7;
  CHECK(qm_engine_preemption_targets_json(e, "a", "owner", &query, &json) == QM_INVALID_ARGUMENT);

  /* Cohorts: the implicit "pool", listed too. */
  OK(e, qm_engine_cohort_json(e, "pool", &json));
  CHECK(JsonHas(e, json, "\"implicit\": true"));
  CHECK(qm_engine_cohort_json(e, "nope", &json) == QM_NOT_FOUND);
  OK(e, qm_engine_list_json(e, &json));
  CHECK(JsonHas(e, json, "\"cohorts\": [\n    \"pool\"\n  ]"));
  qm_engine_destroy(e);
}

/* API version 4: waitForPodsReady from the Configuration, pods reported with qm_engine_set_pods_ready. */
static void TestPodsReady(void) {
  qm_engine_options options = QM_ENGINE_OPTIONS_INIT;
  options.start_time_unix_micros = 1704067200000000LL;
  qm_engine* e = NULL;
  const char* config =
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "waitForPodsReady: {timeout: 1m, requeuingStrategy: {backoffLimitCount: 0}}\n";
  if (qm_engine_create_with_config(&options, config, "config.yaml", &e) != QM_OK) {
    fprintf(stderr, "create_with_config: %s\n", qm_last_error());
    ++failures;
    return;
  }
  OK(e, qm_engine_apply_yaml(e, kCluster, "cluster.yaml"));
  const uint64_t slow = Submit(e, "a", "slow", 1, 1000);
  Submit(e, "a", "fast", 1, 1000);
  CHECK(qm_engine_set_pods_ready_h(e, slow, 1) == QM_FAILED_PRECONDITION); /* pending: no pods */
  OK(e, qm_engine_run_until_stable(e, 10, NULL));
  OK(e, qm_engine_set_pods_ready(e, "a", "fast", 1));
  int64_t next = 0;
  int has = 0;
  OK(e, qm_engine_next_timed_change(e, &next, &has));
  CHECK(has == 1 && next == 1704067200000000LL + 60000000LL);
  OK(e, qm_engine_set_now(e, next));
  OK(e, qm_engine_schedule_cycle(e, NULL));
  const qm_event* const* events = NULL;
  size_t n = 0;
  OK(e, qm_engine_events(e, &events, &n));
  /* backoffLimitCount 0: the first timeout deactivates. */
  CHECK(n == 1 && events[0]->kind == QM_EVENT_EVICTED &&
        strcmp(events[0]->reason, "Deactivated") == 0);
  CHECK(qm_engine_set_pods_ready(e, "a", "nope", 1) == QM_NOT_FOUND);
  qm_engine_destroy(e);
  CHECK(qm_engine_create_with_config(
            &options, "kind: Configuration\napiVersion: config.kueue.x-k8s.io/v1beta2\nwaitForPodsReady: {timeout: -1s}\n",
            "config.yaml", &e) == QM_INVALID_ARGUMENT);
}

int main(void) {
  CHECK(qm_api_version() >= 4);
  TestOldLayouts();
  TestEvents();
  TestEngineMirror();
  TestPodsReady();
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_growth_test: all checks passed\n");
  return 0;
}
