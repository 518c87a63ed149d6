/* A host loop in C over the Quartermaster C API (docs/c-api.md): two teams share 16 GPUs; team-b
 * borrows team-a's idle quota, team-a reclaims it, and the host stops the preempted job's pods
 * before confirming the eviction. Exits 0 when the engine decided what the comments say.
 *
 * Build against an installed library: cc -std=c11 host_loop.c $(pkg-config --cflags --libs quartermaster-c) */
#include <stdio.h>
#include <string.h>

#include "qm/c/quartermaster.h"

static const char* kCluster =
    "- {kind: Namespace, metadata: {name: team-a}}\n"
    "- {kind: Namespace, metadata: {name: team-b}}\n"
    "- {kind: ResourceFlavor, metadata: {name: gpu}}\n"
    "- kind: ClusterQueue\n"
    "  metadata: {name: team-a}\n"
    "  spec:\n"
    "    cohortName: research\n"
    "    namespaceSelector: {}\n"
    "    preemption: {reclaimWithinCohort: Any}\n"
    "    resourceGroups:\n"
    "    - coveredResources: [nvidia.com/gpu]\n"
    "      flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]\n"
    "- kind: ClusterQueue\n"
    "  metadata: {name: team-b}\n"
    "  spec:\n"
    "    cohortName: research\n"
    "    namespaceSelector: {}\n"
    "    resourceGroups:\n"
    "    - coveredResources: [nvidia.com/gpu]\n"
    "      flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]\n"
    "- {kind: LocalQueue, metadata: {namespace: team-a, name: jobs}, spec: {clusterQueue: team-a}}\n"
    "- {kind: LocalQueue, metadata: {namespace: team-b, name: jobs}, spec: {clusterQueue: team-b}}\n";

/* Prints the events of the latest call and acts on them as a host would; returns how many
 * preemptions it saw. */
static int ActOnEvents(qm_engine* engine) {
  const qm_event* const* events = NULL;
  size_t n = 0;
  if (qm_engine_events(engine, &events, &n) != QM_OK) return -1;
  int preempted = 0;
  for (size_t i = 0; i < n; ++i) {
    const qm_event* e = events[i];
    printf("%-9s %s", qm_event_kind_name(e->kind), e->workload_name);
    if (e->kind == QM_EVENT_ADMITTED) {
      for (size_t p = 0; p < e->pod_set_count; ++p) {
        printf(" (%d pods on", e->pod_sets[p]->count);
        for (size_t f = 0; f < e->pod_sets[p]->flavor_count; ++f) {
          printf(" %s=%s", e->pod_sets[p]->flavors[f]->resource, e->pod_sets[p]->flavors[f]->flavor);
        }
        printf(")");
      }
    } else if (e->kind == QM_EVENT_PREEMPTED) {
      printf(" by %s (%s)", e->preemptor_name, e->preemption_reason);
      ++preempted;
    }
    printf("\n");
  }
  /* The events array is valid until the next call on the engine: nothing from it is kept. */
  return preempted;
}

int main(void) {
  qm_engine* engine = NULL;
  if (qm_engine_create(NULL, &engine) != QM_OK) {
    fprintf(stderr, "create: %s\n", qm_last_error());
    return 1;
  }
  int status = 1;
  qm_resource_amount gpu = {"nvidia.com/gpu", 4};
  qm_pod_set pods = {"main", 4, 0, &gpu, 1}; /* 16 GPUs: all of team-b's and team-a's */
  qm_workload big = {QM_WORKLOAD_VERSION, "team-b", "train", "jobs", NULL, 0, 0, 0, &pods, 1, 0};
  qm_pod_set small_pods = {"main", 2, 0, &gpu, 1}; /* 8 GPUs: team-a's own quota */
  qm_workload urgent = {QM_WORKLOAD_VERSION, "team-a", "finetune", "jobs", NULL, 0, 0, 0, &small_pods, 1, 0};
  uint64_t train = 0;
  if (qm_engine_apply_yaml(engine, kCluster, "cluster") != QM_OK ||
      qm_engine_submit(engine, &big, &train) != QM_OK ||
      qm_engine_run_until_stable(engine, 100, NULL) != QM_OK) {
    fprintf(stderr, "error: %s\n", qm_engine_last_error(engine));
    goto done;
  }
  ActOnEvents(engine);  /* team-b/train admitted, borrowing team-a's 8 GPUs */

  if (qm_engine_submit(engine, &urgent, NULL) != QM_OK ||
      qm_engine_run_until_stable(engine, 100, NULL) != QM_OK) {
    fprintf(stderr, "error: %s\n", qm_engine_last_error(engine));
    goto done;
  }
  if (ActOnEvents(engine) != 1) { /* team-a reclaims: train preempted */
    fprintf(stderr, "expected one preemption\n");
    goto done;
  }
  if (qm_engine_confirm_evicted_h(engine, train) != QM_OK ||
      qm_engine_run_until_stable(engine, 100, NULL) != QM_OK) {
    fprintf(stderr, "error: %s\n", qm_engine_last_error(engine));
    goto done;
  }
  ActOnEvents(engine); /* team-a/finetune admitted */

  char* json = NULL;
  if (qm_engine_workload_json(engine, "team-a", "finetune", &json) != QM_OK) goto done;
  const int admitted = strstr(json, "\"state\": \"Admitted\"") != NULL;
  qm_free(json);
  if (!admitted) {
    fprintf(stderr, "team-a/finetune is not admitted\n");
    goto done;
  }
  printf("ok: team-a reclaimed its quota (library %s)\n", qm_version());
  status = 0;
done:
  qm_engine_destroy(engine);
  return status;
}
