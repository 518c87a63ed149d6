/* The C API from C11: a reclaim scenario driven through YAML and plain structs, events, queries,
 * snapshots, HyperPod render/lint, the anti-thrash policies (minimum runtime with its timer,
 * preemption counts, cycle events, configuration errors), and the error paths (NULL handles,
 * invalid UTF-8, bad input leaving the engine unchanged, stale handles, deep nesting, calls after
 * destroy in debug builds, two threads on one engine). Run as the CTest c_api.test, also under
 * ASan+UBSan.
 *
 * Usage: c_api_test HYPERPOD_QUOTA_JSON */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "qm/c/quartermaster.h"

static int failures = 0;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                            \
    }                                                                        \
  } while (0)

/* A call expected to succeed; prints the engine's message otherwise. */
#define OK(engine, call)                                                                   \
  do {                                                                                     \
    qm_status st_ = (call);                                                                \
    if (st_ != QM_OK) {                                                                    \
      fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call, qm_status_name(st_), \
              qm_engine_last_error(engine));                                               \
      ++failures;                                                                          \
    }                                                                                      \
  } while (0)

static const char* kCluster =
    "- {apiVersion: v1, kind: Namespace, metadata: {name: team-a}}\n"
    "- {apiVersion: v1, kind: Namespace, metadata: {name: team-b}}\n"
    "- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: gpu}}\n"
    "- apiVersion: kueue.x-k8s.io/v1beta2\n"
    "  kind: ClusterQueue\n"
    "  metadata: {name: team-a}\n"
    "  spec:\n"
    "    cohortName: research\n"
    "    namespaceSelector: {}\n"
    "    preemption: {reclaimWithinCohort: Any}\n"
    "    resourceGroups:\n"
    "    - coveredResources: [nvidia.com/gpu]\n"
    "      flavors:\n"
    "      - name: gpu\n"
    "        resources: [{name: nvidia.com/gpu, nominalQuota: 16}]\n"
    "- {apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue,\n"
    "   metadata: {namespace: team-a, name: jobs}, spec: {clusterQueue: team-a}}\n";

static const char* kWorkloadA =
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: Workload\n"
    "metadata: {namespace: team-a, name: a-1}\n"
    "spec:\n"
    "  queueName: jobs\n"
    "  podSets:\n"
    "  - name: main\n"
    "    count: 2\n"
    "    template: {spec: {containers: [{name: c, resources: {requests: {nvidia.com/gpu: 8}}}]}}\n";

/* Finds the first event of `kind` for workload `name`; NULL when there is none. */
static const qm_event* FindEvent(const qm_event* const* events, size_t n, qm_event_kind kind,
                                 const char* name) {
  for (size_t i = 0; i < n; ++i) {
    if (events[i]->kind == kind && strcmp(events[i]->workload_name, name) == 0) return events[i];
  }
  return NULL;
}

static char* ReadFile(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)size + 1);
  if (text != NULL && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text != NULL) text[size] = '\0';
  fclose(f);
  return text;
}

/* team-b from plain structs: 16 GPUs of flavor gpu, in cohort research. */
static void ApplyTeamB(qm_engine* e) {
  const char* covered[] = {"nvidia.com/gpu"};
  qm_resource_quota quota = {"nvidia.com/gpu", 16, 0, 0, 0, 0};
  qm_flavor_quotas flavor = {"gpu", &quota, 1};
  qm_cluster_queue cq = {QM_CLUSTER_QUEUE_VERSION, "team-b", "research", covered, 1, &flavor, 1,
                         QM_WITHIN_CQ_NEVER, QM_RECLAIM_ANY, 0};
  OK(e, qm_engine_apply_cluster_queue(e, &cq));
  qm_local_queue lq = {QM_LOCAL_QUEUE_VERSION, "team-b", "jobs", "team-b"};
  OK(e, qm_engine_apply_local_queue(e, &lq));
  qm_priority_class pc = {QM_PRIORITY_CLASS_VERSION, "low", 10};
  OK(e, qm_engine_apply_priority_class(e, &pc));
}

static void TestScenario(void) {
  qm_engine_options options = {QM_ENGINE_OPTIONS_VERSION, 0, 0, "PartialAdmission=true", 1704067200000000LL};
  qm_engine* e = NULL;
  if (qm_engine_create(&options, &e) != QM_OK) {
    fprintf(stderr, "create: %s\n", qm_last_error());
    ++failures;
    return;
  }
  int64_t now = 0;
  OK(e, qm_engine_now(e, &now));
  CHECK(now == 1704067200000000LL);
  OK(e, qm_engine_apply_yaml(e, kCluster, "cluster.yaml"));
  ApplyTeamB(e);

  /* team-b borrows: 24 GPUs (3 pods x 8) of which 8 are team-a's idle quota. */
  qm_resource_amount gpus = {"nvidia.com/gpu", 8};
  qm_pod_set pods = {"main", 3, 0, &gpus, 1};
  qm_workload b1 = {QM_WORKLOAD_VERSION, "team-b", "b-1", "jobs", "low", 0, 0, 0, &pods, 1, 0};
  uint64_t b1_handle = 0;
  OK(e, qm_engine_submit(e, &b1, &b1_handle));
  uint64_t found = 0;
  OK(e, qm_engine_find_workload(e, "team-b", "b-1", &found));
  CHECK(found == b1_handle);

  qm_cycle_summary summary = QM_CYCLE_SUMMARY_INIT;
  OK(e, qm_engine_schedule_cycle(e, &summary));
  CHECK(summary.cycle == 1 && summary.admitted == 1 && summary.preempted == 0);
  const qm_event* const* events = NULL;
  size_t n = 0;
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(n == 1);
  const qm_event* admitted = FindEvent(events, n, QM_EVENT_ADMITTED, "team-b/b-1");
  CHECK(admitted != NULL);
  if (admitted != NULL) {
    CHECK(admitted->workload == b1_handle);
    CHECK(strcmp(admitted->cluster_queue, "team-b") == 0);
    CHECK(admitted->pod_set_count == 1);
    CHECK(admitted->pod_sets[0]->count == 3);
    CHECK(admitted->pod_sets[0]->flavor_count == 1);
    CHECK(strcmp(admitted->pod_sets[0]->flavors[0]->resource, "nvidia.com/gpu") == 0);
    CHECK(strcmp(admitted->pod_sets[0]->flavors[0]->flavor, "gpu") == 0);
    CHECK(strcmp(qm_event_kind_name(admitted->kind), "Admitted") == 0);
  }

  /* team-a reclaims its 8 GPUs: b-1 is preempted. */
  OK(e, qm_engine_apply_yaml(e, kWorkloadA, "a-1.yaml"));
  int cycles = 0;
  OK(e, qm_engine_run_until_stable(e, 100, &cycles));
  CHECK(cycles >= 1);
  OK(e, qm_engine_events(e, &events, &n));
  const qm_event* preempted = FindEvent(events, n, QM_EVENT_PREEMPTED, "team-b/b-1");
  CHECK(preempted != NULL);
  if (preempted != NULL) {
    CHECK(strcmp(preempted->preemption_reason, "InCohortReclamation") == 0);
    CHECK(strcmp(preempted->preemptor_name, "team-a/a-1") == 0);
    CHECK(strcmp(preempted->reason, "Preempted") == 0);
    CHECK(strstr(preempted->message, "reclamation within the cohort") != NULL);
  }
  char* json = NULL;
  OK(e, qm_engine_events_json(e, &json));
  CHECK(json != NULL && strstr(json, "\"preemptionReason\": \"InCohortReclamation\"") != NULL);
  qm_free(json);

  OK(e, qm_engine_confirm_evicted_h(e, b1_handle));
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(FindEvent(events, n, QM_EVENT_REQUEUED, "team-b/b-1") != NULL);
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(FindEvent(events, n, QM_EVENT_ADMITTED, "team-a/a-1") != NULL);

  /* Queries. */
  OK(e, qm_engine_cluster_queue_json(e, "team-a", &json));
  CHECK(json != NULL && strstr(json, "\"usage\": 16") != NULL &&
        strstr(json, "\"admitted\": [\n    \"team-a/a-1\"") != NULL);
  qm_free(json);
  OK(e, qm_engine_workload_json(e, "team-b", "b-1", &json));
  CHECK(json != NULL && strstr(json, "\"state\": \"Pending\"") != NULL &&
        strstr(json, "\"priority\": 10") != NULL);
  qm_free(json);
  OK(e, qm_engine_explain_json(e, "team-b", "b-1", &json));
  CHECK(json != NULL && strstr(json, "team-b/b-1") != NULL);
  qm_free(json);
  /* Forecast (API version 6): b-1 waits for a-1, which runs 2 h. */
  OK(e, qm_engine_forecast_json(e, "{\"defaultRuntime\": \"2h\"}", &json));
  CHECK(json != NULL && strstr(json, "\"workload\": \"team-b/b-1\"") != NULL &&
        strstr(json, "\"startsIn\": \"2h0m0s\"") != NULL && strstr(json, "\"workload\": \"team-a/a-1\",\n") != NULL &&
        strstr(json, "\"kind\": \"finishes\"") != NULL);
  qm_free(json);
  json = NULL;
  CHECK(qm_engine_forecast_json(e, "{\"defaultRuntime\": [\"1h\", \"2x\"]}", &json) == QM_INVALID_ARGUMENT);
  CHECK(json == NULL && strstr(qm_engine_last_error(e), "defaultRuntime[1]: \"2x\" is not a positive duration") != NULL);
  CHECK(qm_engine_forecast_json(e, NULL, &json) == QM_INVALID_ARGUMENT);  /* no estimate at all */
  CHECK(strstr(qm_engine_last_error(e), "has no runtime estimate") != NULL);
  /* What-if (API version 6): b-1 waits for a-1's GPUs; more quota for team-b would admit it. */
  OK(e, qm_engine_what_if_json(e, "team-b", "b-1", &json));
  CHECK(json != NULL && strstr(json, "\"admittedAsIs\": false") != NULL && strstr(json, "\"kind\": \"quota\"") != NULL &&
        strstr(json, "\"clusterQueue\": \"team-b\"") != NULL);
  qm_free(json);
  json = NULL;
  CHECK(qm_engine_what_if_json(e, "team-a", "a-1", &json) == QM_FAILED_PRECONDITION && json == NULL);
  OK(e, qm_engine_list_json(e, &json));
  CHECK(json != NULL && strstr(json, "\"team-a/a-1\"") != NULL &&
        strstr(json, "\"team-b\"") != NULL && strstr(json, "\"localQueues\": [\n    \"team-a/jobs\"") != NULL);
  qm_free(json);
  /* LocalQueue status (API version 5): team-a/a-1 holds 16 GPUs through team-a/jobs. */
  OK(e, qm_engine_local_queue_json(e, "team-a", "jobs", &json));
  CHECK(json != NULL && strstr(json, "\"reason\": \"Ready\"") != NULL &&
        strstr(json, "\"reservingWorkloads\": 1") != NULL && strstr(json, "\"total\": 16") != NULL);
  qm_free(json);
  json = NULL;
  CHECK(qm_engine_local_queue_json(e, "team-a", "missing", &json) == QM_NOT_FOUND && json == NULL);

  /* Save and restore: the copy answers the same and schedules the same. */
  char* snapshot = NULL;
  size_t size = 0;
  OK(e, qm_engine_save(e, &snapshot, &size));
  CHECK(snapshot != NULL && size > 0);
  qm_engine* copy = NULL;
  CHECK(qm_engine_restore(snapshot, size, &copy) == QM_OK);
  qm_free(snapshot);
  if (copy != NULL) {
    char* a = NULL;
    char* b = NULL;
    OK(e, qm_engine_workload_json(e, "team-b", "b-1", &a));
    OK(copy, qm_engine_workload_json(copy, "team-b", "b-1", &b));
    /* The whole status, preemption history included (snapshot format 2 saves it). */
    CHECK(a != NULL && b != NULL && strcmp(a, b) == 0);
    qm_free(a);
    qm_free(b);
    OK(copy, qm_engine_finish(copy, "team-a", "a-1"));
    OK(copy, qm_engine_run_until_stable(copy, 100, NULL));
    OK(copy, qm_engine_events(copy, &events, &n));
    CHECK(FindEvent(events, n, QM_EVENT_ADMITTED, "team-b/b-1") != NULL);
    qm_engine_destroy(copy);
  }

  /* Host eviction, then delete: the handle becomes stale. */
  OK(e, qm_engine_evict(e, "team-a", "a-1", "NodeFailures", "node n-1 failed"));
  OK(e, qm_engine_events(e, &events, &n));
  const qm_event* evicted = FindEvent(events, n, QM_EVENT_EVICTED, "team-a/a-1");
  CHECK(evicted != NULL && strcmp(evicted->reason, "NodeFailures") == 0 &&
        strcmp(evicted->message, "node n-1 failed") == 0);
  int confirmed = 0;
  OK(e, qm_engine_confirm_all_evicted(e, &confirmed));
  CHECK(confirmed == 1);
  OK(e, qm_engine_delete_workload_h(e, b1_handle));
  CHECK(qm_engine_finish_h(e, b1_handle) == QM_NOT_FOUND);
  CHECK(strlen(qm_engine_last_error(e)) > 0);
  CHECK(qm_engine_finish(e, "team-b", "nope") == QM_NOT_FOUND);
  CHECK(strstr(qm_engine_last_error(e), "nope") != NULL);
  qm_engine_destroy(e);
}

/* ---- Anti-thrash ---------------------------------------------------------------------------- */

static const int64_t kT0 = 1704067200000000LL; /* 2024-01-01T00:00:00Z */
static const int64_t kMinute = 60000000LL;

/* One ClusterQueue `solo` (4 CPUs) whose workloads preempt lower priorities, and LocalQueue
 * default/main. */
static const char* kSolo =
    "- {kind: Namespace, metadata: {name: default}}\n"
    "- {kind: ResourceFlavor, metadata: {name: default}}\n"
    "- kind: ClusterQueue\n"
    "  metadata: {name: solo}\n"
    "  spec:\n"
    "    namespaceSelector: {}\n"
    "    preemption: {withinClusterQueue: LowerPriority}\n"
    "    resourceGroups:\n"
    "    - coveredResources: [cpu]\n"
    "      flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]\n"
    "- {kind: LocalQueue, metadata: {namespace: default, name: main}, spec: {clusterQueue: solo}}\n";

/* An engine with `configuration` (a Kueue Configuration document) whose clock starts at kT0. */
static qm_engine* NewEngine(const char* configuration) {
  qm_engine_options options = {QM_ENGINE_OPTIONS_VERSION, 0, 0, NULL, kT0};
  qm_engine* e = NULL;
  if (qm_engine_create_with_config(&options, configuration, "config.yaml", &e) != QM_OK) {
    fprintf(stderr, "create_with_config: %s\n", qm_last_error());
    ++failures;
  }
  return e;
}

/* Submits a one-pod workload asking for `cpus` CPUs at `priority` in LocalQueue `queue`. */
static void SubmitCpu(qm_engine* e, const char* name, const char* queue, int64_t cpus,
                      int32_t priority) {
  qm_resource_amount cpu = {"cpu", cpus * 1000};
  qm_pod_set pods = {"main", 1, 0, &cpu, 1};
  qm_workload w = {QM_WORKLOAD_VERSION, "default", name, queue, NULL, 1, priority, 0, &pods, 1, 0};
  OK(e, qm_engine_submit(e, &w, NULL));
}

/* The number of events of `kind` in the engine's latest call. */
static size_t CountEvents(qm_engine* e, qm_event_kind kind) {
  const qm_event* const* events = NULL;
  size_t n = 0, found = 0;
  OK(e, qm_engine_events(e, &events, &n));
  for (size_t i = 0; i < n; ++i) found += events[i]->kind == kind;
  return found;
}

static void TestMinRuntime(void) {
  /* Setup: `low` runs from kT0; `high` (higher priority, same queue) arrives 10 minutes later.
   * Expect: no preemption before `low` has run its hour; the timer says when; at that instant the
   * next cycle preempts it. */
  qm_engine* e = NewEngine(
      "apiVersion: config.kueue.x-k8s.io/v1beta1\n"
      "kind: Configuration\n"
      "antiThrash:\n"
      "  minRuntime: [{duration: 1h, reasons: [InClusterQueue]}]\n");
  if (e == NULL) return;
  OK(e, qm_engine_apply_yaml(e, kSolo, "solo.yaml"));
  int64_t at = -1;
  int has = -1;
  OK(e, qm_engine_next_timed_change(e, &at, &has));
  CHECK(has == 0 && at == 0);

  SubmitCpu(e, "low", "main", 4, 10);
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  CHECK(CountEvents(e, QM_EVENT_ADMITTED) == 1);
  OK(e, qm_engine_next_timed_change(e, &at, &has));
  CHECK(has == 1 && at == kT0 + 60 * kMinute);

  OK(e, qm_engine_set_now(e, kT0 + 10 * kMinute));
  SubmitCpu(e, "high", "main", 4, 100);
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  CHECK(CountEvents(e, QM_EVENT_PREEMPTED) == 0);
  OK(e, qm_engine_set_now(e, kT0 + 59 * kMinute));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  CHECK(CountEvents(e, QM_EVENT_PREEMPTED) == 0);

  OK(e, qm_engine_next_timed_change(e, &at, &has));
  CHECK(has == 1 && at == kT0 + 60 * kMinute);
  OK(e, qm_engine_set_now(e, at));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  const qm_event* const* events = NULL;
  size_t n = 0;
  OK(e, qm_engine_events(e, &events, &n));
  const qm_event* preempted = FindEvent(events, n, QM_EVENT_PREEMPTED, "default/low");
  CHECK(preempted != NULL && strcmp(preempted->preemptor_name, "default/high") == 0 &&
        strcmp(preempted->preemption_reason, "InClusterQueue") == 0);

  /* `high` admitted at kT0 + 1h is protected in turn: a new timer an hour later. */
  OK(e, qm_engine_confirm_all_evicted(e, NULL));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  CHECK(CountEvents(e, QM_EVENT_ADMITTED) == 1);
  OK(e, qm_engine_next_timed_change(e, &at, &has));
  CHECK(has == 1 && at == kT0 + 120 * kMinute);
  char* json = NULL;
  OK(e, qm_engine_workload_json(e, "default", "low", &json));
  CHECK(json != NULL && strstr(json, "\"heldLostMicros\": 3600000000") != NULL);
  qm_free(json);
  qm_engine_destroy(e);

  /* Without the policies there is never a timer. */
  qm_engine* plain = NULL;
  CHECK(qm_engine_create(NULL, &plain) == QM_OK);
  if (plain != NULL) {
    OK(plain, qm_engine_apply_yaml(plain, kSolo, "solo.yaml"));
    SubmitCpu(plain, "low", "main", 4, 10);
    OK(plain, qm_engine_run_until_stable(plain, 100, NULL));
    OK(plain, qm_engine_next_timed_change(plain, &at, &has));
    CHECK(has == 0 && at == 0);
    qm_engine_destroy(plain);
  }
}

static void TestPreemptedTwice(void) {
  /* Setup: team-b's b-1 borrows 8 GPUs of team-a's; team-a reclaims them twice (a-1 at +10 min,
   * a-2 at +50 min), b-1 running again in between (from +20 min). No anti-thrash policy: the
   * history is kept for every engine. Expect: b-1 preempted twice for InCohortReclamation, by a-1
   * then a-2, having lost 10 + 30 minutes of quota; a-1 caused one preemption. */
  qm_engine_options options = {QM_ENGINE_OPTIONS_VERSION, 0, 0, NULL, kT0};
  qm_engine* e = NULL;
  CHECK(qm_engine_create(&options, &e) == QM_OK);
  if (e == NULL) return;
  OK(e, qm_engine_apply_yaml(e, kCluster, "cluster.yaml"));
  ApplyTeamB(e);
  qm_resource_amount gpus = {"nvidia.com/gpu", 8};
  qm_pod_set pods = {"main", 3, 0, &gpus, 1};
  qm_workload b1 = {QM_WORKLOAD_VERSION, "team-b", "b-1", "jobs", NULL, 0, 0, 0, &pods, 1, 0};
  OK(e, qm_engine_submit(e, &b1, NULL));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));

  OK(e, qm_engine_set_now(e, kT0 + 10 * kMinute));
  OK(e, qm_engine_apply_yaml(e, kWorkloadA, "a-1.yaml"));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  CHECK(CountEvents(e, QM_EVENT_PREEMPTED) == 1);
  OK(e, qm_engine_confirm_evicted(e, "team-b", "b-1"));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  OK(e, qm_engine_set_now(e, kT0 + 20 * kMinute));
  OK(e, qm_engine_finish(e, "team-a", "a-1"));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  const qm_event* const* events = NULL;
  size_t n = 0;
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(FindEvent(events, n, QM_EVENT_ADMITTED, "team-b/b-1") != NULL);

  OK(e, qm_engine_set_now(e, kT0 + 50 * kMinute));
  pods.count = 2; /* a-2: 16 GPUs, team-a's nominal quota */
  qm_workload a2 = {QM_WORKLOAD_VERSION, "team-a", "a-2", "jobs", NULL, 0, 0, 0, &pods, 1, 0};
  OK(e, qm_engine_submit(e, &a2, NULL));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(FindEvent(events, n, QM_EVENT_PREEMPTED, "team-b/b-1") != NULL);

  char* json = NULL;
  OK(e, qm_engine_workload_json(e, "team-b", "b-1", &json));
  const char* by_a1 = json != NULL ? strstr(json, "\"preemptor\": \"team-a/a-1\"") : NULL;
  const char* by_a2 = json != NULL ? strstr(json, "\"preemptor\": \"team-a/a-2\"") : NULL;
  const int counted =
      json != NULL && strstr(json, "\"preempted\": 2,") != NULL &&
      strstr(json, "\"InCohortReclamation\": 2,") != NULL &&
      strstr(json, "\"InClusterQueue\": 0,") != NULL && strstr(json, "\"caused\": 0,") != NULL &&
      strstr(json, "\"heldLostMicros\": 2400000000,") != NULL &&
      strstr(json, "\"preemptorClusterQueue\": \"team-a\"") != NULL &&
      strstr(json, "\"timeUnixMicros\": 1704070200000000") != NULL && /* kT0 + 50 min */
      strstr(json, "\"borrowAllowedAtUnixMicros\": null") != NULL;
  CHECK(counted);
  CHECK(by_a1 != NULL && by_a2 != NULL && by_a1 < by_a2); /* oldest first */
  if (!counted && json != NULL) printf("%s\n", json);
  qm_free(json);
  OK(e, qm_engine_workload_json(e, "team-a", "a-1", &json));
  CHECK(json != NULL && strstr(json, "\"preempted\": 0,") != NULL &&
        strstr(json, "\"caused\": 1,") != NULL && strstr(json, "\"recent\": []") != NULL);
  qm_free(json);
  OK(e, qm_engine_explain_json(e, "team-b", "b-1", &json));
  CHECK(json != NULL && strstr(json, "\"preemptions\": {") != NULL &&
        strstr(json, "\"heldLost\": \"40m0s\"") != NULL &&
        strstr(json, "\"at\": \"2024-01-01T00:50:00Z\"") != NULL &&
        strstr(json, "\"by\": \"team-a/a-2\"") != NULL);
  qm_free(json);
  qm_engine_destroy(e);
}

static void TestPreemptionCycles(void) {
  /* Setup, with cycle detection on: queues a and b (4 CPUs each, cohort c) reclaim from each other:
   * b1 borrows, a1 reclaims; later a2 borrows, b2 reclaims. Expect: the second reclaim closes the
   * ring a -> b -> a within the window: a PREEMPTION_CYCLE event after the PREEMPTED one. */
  qm_engine* e = NewEngine(
      "{apiVersion: config.kueue.x-k8s.io/v1beta2, kind: Configuration,\n"
      " antiThrash: {cycleDetection: {enable: true, window: 1h}}}\n");
  if (e == NULL) return;
  const char* cohort =
      "- {kind: Namespace, metadata: {name: default}}\n"
      "- {kind: ResourceFlavor, metadata: {name: default}}\n"
      "- kind: ClusterQueue\n"
      "  metadata: {name: a}\n"
      "  spec:\n"
      "    cohortName: c\n"
      "    namespaceSelector: {}\n"
      "    preemption: {reclaimWithinCohort: Any}\n"
      "    resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: "
      "[{name: cpu, nominalQuota: 4}]}]}]\n"
      "- kind: ClusterQueue\n"
      "  metadata: {name: b}\n"
      "  spec:\n"
      "    cohortName: c\n"
      "    namespaceSelector: {}\n"
      "    preemption: {reclaimWithinCohort: Any}\n"
      "    resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: "
      "[{name: cpu, nominalQuota: 4}]}]}]\n"
      "- {kind: LocalQueue, metadata: {namespace: default, name: a}, spec: {clusterQueue: a}}\n"
      "- {kind: LocalQueue, metadata: {namespace: default, name: b}, spec: {clusterQueue: b}}\n";
  OK(e, qm_engine_apply_yaml(e, cohort, "cohort.yaml"));
  SubmitCpu(e, "b1", "b", 6, 0);
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  OK(e, qm_engine_set_now(e, kT0 + 10 * kMinute));
  SubmitCpu(e, "a1", "a", 4, 0);
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  CHECK(CountEvents(e, QM_EVENT_PREEMPTED) == 1 && CountEvents(e, QM_EVENT_PREEMPTION_CYCLE) == 0);
  OK(e, qm_engine_confirm_all_evicted(e, NULL));
  OK(e, qm_engine_set_now(e, kT0 + 20 * kMinute));
  OK(e, qm_engine_finish(e, "default", "a1"));
  OK(e, qm_engine_delete_workload(e, "default", "b1"));
  SubmitCpu(e, "a2", "a", 6, 0);
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  OK(e, qm_engine_set_now(e, kT0 + 30 * kMinute));
  SubmitCpu(e, "b2", "b", 4, 0);
  OK(e, qm_engine_run_until_stable(e, 100, NULL));

  const qm_event* const* events = NULL;
  size_t n = 0;
  OK(e, qm_engine_events(e, &events, &n));
  CHECK(n == 2);
  if (n == 2) {
    CHECK(events[0]->kind == QM_EVENT_PREEMPTED && strcmp(events[0]->workload_name, "default/a2") == 0);
    const qm_event* cycle = events[1];
    CHECK(cycle->kind == QM_EVENT_PREEMPTION_CYCLE);
    CHECK(strcmp(qm_event_kind_name(cycle->kind), "PreemptionCycle") == 0);
    CHECK(strcmp(cycle->workload_name, "default/a2") == 0 && cycle->workload == events[0]->workload);
    CHECK(strcmp(cycle->cluster_queue, "a") == 0);
    CHECK(strcmp(cycle->reason, "ClusterQueuePreemptionCycle") == 0);
    CHECK(strcmp(cycle->preemptor_name, "default/b2") == 0 && cycle->preemptor == events[0]->preemptor);
    CHECK(strcmp(cycle->preemption_reason, "InCohortReclamation") == 0);
    CHECK(strstr(cycle->message, "a -> b -> a") != NULL);
    CHECK(cycle->time_unix_micros == kT0 + 30 * kMinute && cycle->pod_set_count == 0);
    const char* const* queues = NULL;
    size_t count = 0;
    OK(e, qm_engine_event_cycle_queues(e, 1, &queues, &count));
    CHECK(count == 2 && queues != NULL);
    if (count == 2 && queues != NULL) {
      CHECK(strcmp(queues[0], "a") == 0 && strcmp(queues[1], "b") == 0);
    }
    OK(e, qm_engine_event_cycle_queues(e, 0, &queues, &count));
    CHECK(count == 0 && queues == NULL);
    /* The array is still the one returned above (ASan would catch a freed one). */
    CHECK(events[1]->kind == QM_EVENT_PREEMPTION_CYCLE &&
          strcmp(events[1]->reason, "ClusterQueuePreemptionCycle") == 0);
    CHECK(qm_engine_event_cycle_queues(e, 2, &queues, &count) == QM_OUT_OF_RANGE);
    CHECK(strstr(qm_engine_last_error(e), "index") != NULL);
    CHECK(qm_engine_event_cycle_queues(e, 0, NULL, &count) == QM_INVALID_ARGUMENT);
  }
  char* json = NULL;
  OK(e, qm_engine_events_json(e, &json));
  CHECK(json != NULL && strstr(json, "\"kind\": \"PreemptionCycle\"") != NULL &&
        strstr(json, "\"cycleQueues\": [\n      \"a\",\n      \"b\"\n    ]") != NULL);
  if (json != NULL && strstr(json, "\"cycleQueues\"") == NULL) printf("%s\n", json);
  qm_free(json);

  /* Two workloads that preempt each other, within one queue: w1 is preempted by w2, then (raised
   * above it) preempts w2 back. */
  OK(e, qm_engine_apply_yaml(e, kSolo, "solo.yaml"));
  const char* w1_low = "{kind: Workload, metadata: {name: w1}, spec: {queueName: main, priority: 10, "
                       "podSets: [{count: 1, requests: {cpu: 4}}]}}\n";
  const char* w2 = "{kind: Workload, metadata: {name: w2}, spec: {queueName: main, priority: 20, "
                   "podSets: [{count: 1, requests: {cpu: 4}}]}}\n";
  const char* w1_high = "{kind: Workload, metadata: {name: w1}, spec: {queueName: main, priority: 30, "
                        "podSets: [{count: 1, requests: {cpu: 4}}]}}\n";
  OK(e, qm_engine_apply_yaml(e, w1_low, "w1.yaml"));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  OK(e, qm_engine_apply_yaml(e, w2, "w2.yaml"));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  CHECK(CountEvents(e, QM_EVENT_PREEMPTED) == 1 && CountEvents(e, QM_EVENT_PREEMPTION_CYCLE) == 0);
  OK(e, qm_engine_confirm_all_evicted(e, NULL));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  OK(e, qm_engine_apply_yaml(e, w1_high, "w1.yaml"));
  OK(e, qm_engine_run_until_stable(e, 100, NULL));
  OK(e, qm_engine_events(e, &events, &n));
  const qm_event* cycle = FindEvent(events, n, QM_EVENT_PREEMPTION_CYCLE, "default/w2");
  CHECK(cycle != NULL);
  if (cycle != NULL) {
    CHECK(strcmp(cycle->reason, "WorkloadPreemptionCycle") == 0);
    CHECK(strcmp(cycle->preemptor_name, "default/w1") == 0);
    CHECK(strcmp(cycle->preemption_reason, "InClusterQueue") == 0);
    const char* const* queues = NULL;
    size_t count = 0;
    size_t index = 0;
    while (index < n && events[index] != cycle) ++index;
    OK(e, qm_engine_event_cycle_queues(e, index, &queues, &count));
    CHECK(count == 2 && strcmp(queues[0], "solo") == 0 && strcmp(queues[1], "solo") == 0);
  }
  qm_engine_destroy(e);
}

static void TestAntiThrashErrors(void) {
  qm_engine* e = NULL;
  const char* header = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n";
  struct {
    const char* body;
    const char* expected; /* in qm_last_error() */
  } cases[] = {
      {"antiThrash:\n  minRuntime: [{duration: 0s}]\n",
       "config.yaml:4: Configuration: antiThrash.minRuntime[0].duration: must be more than 0"},
      {"antiThrash:\n  minRuntime:\n  - duration: 1h\n    reasons: [Sometimes]\n",
       "config.yaml:6: Configuration: antiThrash.minRuntime[0].reasons[0]: \"Sometimes\" is not "
       "one of"},
      {"antiThrash: {minRuntme: []}\n", "antiThrash.minRuntme: unknown field"},
      {"antiThrash: {borrowBackoff: {base: 1h, max: 10m}}\n",
       "antiThrash.borrowBackoff.max: must be >= base"},
      {"antiThrash: {cycleDetection: {enable: true, window: soon}}\n",
       "antiThrash.cycleDetection.window"},
  };
  char text[512];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    snprintf(text, sizeof text, "%s%s", header, cases[i].body);
    CHECK(qm_engine_create_with_config(NULL, text, "config.yaml", &e) == QM_INVALID_ARGUMENT);
    CHECK(e == NULL);
    if (strstr(qm_last_error(), cases[i].expected) == NULL) {
      fprintf(stderr, "case %zu: got '%s', expected it to contain '%s'\n", i, qm_last_error(),
              cases[i].expected);
      ++failures;
    }
  }
  /* Only the Configuration belongs in the text; settings are given once; strings are checked. */
  CHECK(qm_engine_create_with_config(NULL, kSolo, NULL, &e) == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_last_error(), "<configuration>: only a Kueue Configuration document") != NULL);
  qm_engine_options gates = {QM_ENGINE_OPTIONS_VERSION, 0, 0, "PartialAdmission=true", 0};
  snprintf(text, sizeof text, "%sfeatureGates: {PartialAdmission: false}\n", header);
  CHECK(qm_engine_create_with_config(&gates, text, "c.yaml", &e) == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_last_error(), "featureGates") != NULL);
  qm_engine_options fair = {QM_ENGINE_OPTIONS_VERSION, 1, 0, NULL, 0};
  snprintf(text, sizeof text, "%sfairSharing: {enable: false}\n", header);
  CHECK(qm_engine_create_with_config(&fair, text, "c.yaml", &e) == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_last_error(), "fairSharing.enable") != NULL);
  CHECK(qm_engine_create_with_config(NULL, "kind: Configuration\xC0\xAF", NULL, &e) ==
        QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_last_error(), "UTF-8") != NULL);
  CHECK(qm_engine_create_with_config(NULL, NULL, NULL, NULL) == QM_INVALID_ARGUMENT);

  /* Settings the text and the options agree on, and an empty text, are fine. */
  snprintf(text, sizeof text,
           "%sfairSharing: {enable: true, preemptionStrategies: [LessThanInitialShare]}\n"
           "antiThrash: {loopFreeFairSharing: true, borrowBackoff: {base: 10m, max: 4h}}\n",
           header);
  CHECK(qm_engine_create_with_config(&fair, text, "c.yaml", &e) == QM_OK && e != NULL);
  qm_engine_destroy(e);
  e = NULL;
  CHECK(qm_engine_create_with_config(NULL, "", NULL, &e) == QM_OK && e != NULL);
  int64_t at = 0;
  int has = 0;
  CHECK(qm_engine_next_timed_change(e, NULL, &has) == QM_INVALID_ARGUMENT);
  CHECK(qm_engine_next_timed_change(e, &at, NULL) == QM_INVALID_ARGUMENT);
  CHECK(qm_engine_next_timed_change(NULL, &at, &has) == QM_INVALID_ARGUMENT);
  /* Before any qm_engine_events call there is no event to index. */
  const char* const* queues = NULL;
  size_t count = 0;
  CHECK(qm_engine_event_cycle_queues(e, 0, &queues, &count) == QM_OUT_OF_RANGE);
  qm_engine_destroy(e);
  CHECK(strcmp(qm_event_kind_name(QM_EVENT_DELETED), "Deleted") == 0);
  CHECK(strcmp(qm_event_kind_name(QM_EVENT_PREEMPTION_CYCLE + 1), "Unknown") == 0);
}

static void TestBadInput(void) {
  qm_engine* e = NULL;
  CHECK(qm_engine_create(NULL, NULL) == QM_INVALID_ARGUMENT);
  CHECK(qm_engine_create(NULL, &e) == QM_OK);
  if (e == NULL) return;
  CHECK(strcmp(qm_engine_last_error(e), "") == 0);

  /* NULL handles and arguments. */
  qm_resource_flavor flavor = {QM_RESOURCE_FLAVOR_VERSION, "f"};
  CHECK(qm_engine_apply_flavor(NULL, &flavor) == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_last_error(), "NULL") != NULL);
  CHECK(qm_engine_apply_flavor(e, NULL) == QM_INVALID_ARGUMENT);
  CHECK(qm_engine_apply_yaml(e, NULL, NULL) == QM_INVALID_ARGUMENT);
  CHECK(qm_engine_events(e, NULL, NULL) == QM_INVALID_ARGUMENT);
  qm_cluster_queue cq = {QM_CLUSTER_QUEUE_VERSION, "q", NULL, NULL, 1, NULL, 0, QM_WITHIN_CQ_NEVER, QM_RECLAIM_NEVER, 0};
  CHECK(qm_engine_apply_cluster_queue(e, &cq) == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_engine_last_error(e), "covered_resources") != NULL);
  cq.covered_resource_count = 0;
  cq.within_cluster_queue = 42;
  CHECK(qm_engine_apply_cluster_queue(e, &cq) == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_engine_last_error(e), "within_cluster_queue") != NULL);
  qm_engine_destroy(NULL); /* a no-op */

  /* Invalid UTF-8: an overlong '/', a lone continuation byte, a surrogate. */
  const char* bad[] = {"kind: ResourceFlavor\nmetadata: {name: \xC0\xAF}\n", "\x80", "\xED\xA0\x80"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    CHECK(qm_engine_apply_yaml(e, bad[i], "bad.yaml") == QM_INVALID_ARGUMENT);
    CHECK(strstr(qm_engine_last_error(e), "UTF-8") != NULL);
  }
  qm_resource_flavor bad_flavor = {QM_RESOURCE_FLAVOR_VERSION, "gpu-\xFF"};
  CHECK(qm_engine_apply_flavor(e, &bad_flavor) == QM_INVALID_ARGUMENT);

  /* A bad object changes nothing, and its error names file, line, object and field. */
  char* before = NULL;
  char* after = NULL;
  OK(e, qm_engine_apply_yaml(e, kCluster, "cluster.yaml"));
  OK(e, qm_engine_list_json(e, &before));
  const char* bad_quota =
      "- {kind: ResourceFlavor, metadata: {name: extra}}\n"
      "- kind: ClusterQueue\n"
      "  metadata: {name: bad}\n"
      "  spec:\n"
      "    resourceGroups:\n"
      "    - coveredResources: [cpu]\n"
      "      flavors: [{name: extra, resources: [{name: cpu, nominalQuota: 12x}]}]\n";
  CHECK(qm_engine_apply_yaml(e, bad_quota, "bad.yaml") == QM_INVALID_ARGUMENT);
  CHECK(strstr(qm_engine_last_error(e), "bad.yaml:") != NULL);
  CHECK(strstr(qm_engine_last_error(e), "nominalQuota") != NULL);
  OK(e, qm_engine_list_json(e, &after));
  CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
  qm_free(before);
  qm_free(after);

  /* Deeply nested input is an error, not a stack overflow. */
  size_t depth = 200000;
  char* deep = malloc(depth + 1);
  if (deep != NULL) {
    memset(deep, '[', depth);
    deep[depth] = '\0';
    CHECK(qm_engine_apply_yaml(e, deep, "deep.yaml") != QM_OK);
    free(deep);
  }

  /* Configuration errors name the gate. */
  qm_engine* other = NULL;
  qm_engine_options options = {QM_ENGINE_OPTIONS_VERSION, 0, 0, "NoSuchGate=true", 0};
  CHECK(qm_engine_create(&options, &other) == QM_INVALID_ARGUMENT && other == NULL);
  CHECK(strstr(qm_last_error(), "NoSuchGate") != NULL);
  options.feature_gates = "PartialAdmission";
  CHECK(qm_engine_create(&options, &other) == QM_INVALID_ARGUMENT);

  /* A corrupted snapshot is an error. */
  CHECK(qm_engine_restore("not a snapshot", 14, &other) != QM_OK && other == NULL);
  CHECK(qm_engine_run_until_stable(e, 0, NULL) == QM_INVALID_ARGUMENT);

  /* Calls after destroy: caught in debug builds only (release: undefined, so not called). */
  qm_engine_destroy(e);
  if (qm_debug_checks()) {
    CHECK(qm_engine_apply_flavor(e, &flavor) == QM_FAILED_PRECONDITION);
    CHECK(strstr(qm_last_error(), "destroyed") != NULL);
    CHECK(strstr(qm_engine_last_error(e), "destroyed") != NULL);
    qm_engine_destroy(e); /* a second destroy is reported, not a double free */
  }
}

/* Two threads on one engine without a lock: every call either works or is refused as busy. */
struct Hammer {
  qm_engine* engine;
  int ok;
  int busy;
  int other;
};

static int HammerThread(void* arg) {
  struct Hammer* h = arg;
  for (int i = 0; i < 300; ++i) {
    char* json = NULL;
    qm_status st = qm_engine_list_json(h->engine, &json);
    if (st == QM_OK) {
      ++h->ok;
      qm_free(json);
    } else if (st == QM_FAILED_PRECONDITION && strstr(qm_last_error(), "in use") != NULL) {
      ++h->busy;
    } else {
      ++h->other;
    }
  }
  return 0;
}

static void TestTwoThreads(void) {
  qm_engine* e = NULL;
  if (qm_engine_create(NULL, &e) != QM_OK) {
    ++failures;
    return;
  }
  OK(e, qm_engine_apply_yaml(e, kCluster, "cluster.yaml"));
  struct Hammer a = {e, 0, 0, 0}, b = {e, 0, 0, 0};
  thrd_t ta, tb;
  CHECK(thrd_create(&ta, HammerThread, &a) == thrd_success);
  CHECK(thrd_create(&tb, HammerThread, &b) == thrd_success);
  thrd_join(ta, NULL);
  thrd_join(tb, NULL);
  CHECK(a.other == 0 && b.other == 0);
  CHECK(a.ok + a.busy == 300 && b.ok + b.busy == 300);
  CHECK(a.ok + b.ok > 0); /* a call is refused only while another one runs */
  /* The engine still works. */
  char* json = NULL;
  OK(e, qm_engine_cluster_queue_json(e, "team-a", &json));
  qm_free(json);
  qm_engine_destroy(e);
}

static void TestHyperpod(const char* quota_path) {
  char* quota = ReadFile(quota_path);
  CHECK(quota != NULL);
  if (quota == NULL) return;
  qm_document doc = {"quota.json", quota};
  char* out = NULL;
  CHECK(qm_hyperpod_render(&doc, 1, 0, 0, &out) == QM_OK);
  CHECK(out != NULL && strstr(out, "kind: ClusterQueue") != NULL &&
        strstr(out, "cohort: shared-pool") != NULL);
  qm_free(out);
  CHECK(qm_hyperpod_render(&doc, 1, 1, 0, &out) == QM_OK);
  CHECK(out != NULL && strstr(out, "\"kind\": \"List\"") != NULL);
  qm_free(out);
  CHECK(qm_hyperpod_render(&doc, 1, 0, 1, &out) == QM_OK);
  CHECK(out != NULL && strstr(out, "fairSharing:") != NULL);
  qm_free(out);
  int exit_code = -1;
  CHECK(qm_hyperpod_lint(&doc, 1, &out, &exit_code) == QM_OK);
  CHECK(exit_code == 0 && out != NULL && strstr(out, "0 errors") != NULL);
  qm_free(out);

  /* An out-of-range BorrowLimit: lint reports it (exit 1), render fails with the message. */
  char* bad = malloc(strlen(quota) + 16);
  char* at = strstr(quota, "\"BorrowLimit\": 50");
  CHECK(bad != NULL && at != NULL);
  if (bad != NULL && at != NULL) {
    size_t prefix = (size_t)(at - quota);
    memcpy(bad, quota, prefix);
    strcpy(bad + prefix, "\"BorrowLimit\": 20000");
    strcat(bad, at + strlen("\"BorrowLimit\": 50"));
    qm_document bad_doc = {"bad.json", bad};
    CHECK(qm_hyperpod_lint(&bad_doc, 1, &out, &exit_code) == QM_OK);
    CHECK(exit_code == 1 && out != NULL && strstr(out, "BorrowLimit") != NULL);
    qm_free(out);
    CHECK(qm_hyperpod_render(&bad_doc, 1, 0, 0, &out) == QM_INVALID_ARGUMENT && out == NULL);
    CHECK(strstr(qm_last_error(), "bad.json") != NULL);
  }
  free(bad);
  CHECK(qm_hyperpod_render(NULL, 0, 0, 0, &out) == QM_INVALID_ARGUMENT);
  free(quota);
}

static void TestSimulate(void) {
  char* json = NULL;
  CHECK(qm_simulate(NULL, "", NULL, NULL, &json) == QM_INVALID_ARGUMENT);
  if (!qm_has_simulator()) {
    CHECK(qm_simulate("a: 1", "submit", NULL, NULL, &json) == QM_UNIMPLEMENTED);
    printf("note: the library has no simulator yet: qm_simulate returns UNIMPLEMENTED\n");
    return;
  }
  const char* trace =
      "submit,namespace,queue,pod_sets,duration\n"
      "0,team-a,jobs,2x{nvidia.com/gpu=8},1h\n"
      "60,team-a,jobs,1x{nvidia.com/gpu=8},30m\n";
  CHECK(qm_simulate(kCluster, trace, NULL, NULL, &json) == QM_OK);
  // The summary JSON is compact. The second job waits for the first's 16 GPUs: 3600 - 60 s,
  // and completes 30 min after that.
  const int ok = json != NULL && strstr(json, "\"jobs\":2,\"admissions\":2,") != NULL &&
                 strstr(json, "\"completed\":2,") != NULL &&
                 strstr(json, "\"max_s\":3540}") != NULL && strstr(json, "\"max_s\":5340}") != NULL;
  CHECK(ok);
  if (!ok) printf("%s\n", json != NULL ? json : qm_last_error());
  qm_free(json);
}

/* qm_engine_reserve: room for N workloads changes nothing a host can see; bad counts are refused. */
static void TestReserve(void) {
  qm_engine* e = NULL;
  CHECK(qm_engine_create(NULL, &e) == QM_OK);
  OK(e, qm_engine_reserve(e, 5000));
  OK(e, qm_engine_reserve(e, 0));
  CHECK(qm_engine_reserve(e, -1) == QM_INVALID_ARGUMENT && strstr(qm_engine_last_error(e), "workloads is -1") != NULL);
  CHECK(qm_engine_reserve(e, INT64_MAX) == QM_INVALID_ARGUMENT);
  CHECK(qm_engine_reserve(NULL, 10) != QM_OK);
  qm_engine_destroy(e);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_api_test HYPERPOD_QUOTA_JSON\n");
    return 2;
  }
  CHECK(qm_api_version() == QM_C_API_VERSION);
  CHECK(strlen(qm_version()) > 0);
  CHECK(strcmp(qm_status_name(QM_NOT_FOUND), "NOT_FOUND") == 0);
  TestScenario();
  TestMinRuntime();
  TestPreemptedTwice();
  TestPreemptionCycles();
  TestAntiThrashErrors();
  TestBadInput();
  TestTwoThreads();
  TestHyperpod(argv[1]);
  TestSimulate();
  TestReserve();
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_test: all checks passed (library %s, debug checks %s)\n", qm_version(),
         qm_debug_checks() ? "on" : "off");
  return 0;
}
