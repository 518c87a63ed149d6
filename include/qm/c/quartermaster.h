/* The Quartermaster C API (C11): the engine, the HyperPod renderer and linter, and the simulator,
 * for programs in C, Go (cgo), Rust (bindgen), Python (ctypes) and anything else with a C FFI.
 * Guide: docs/c-api.md. Library: libquartermaster_c.so (SONAME libquartermaster_c.so.0),
 * pkg-config module quartermaster-c, CMake target quartermaster::c.
 *
 *   qm_engine* engine = NULL;
 *   if (qm_engine_create(NULL, &engine) != QM_OK) { puts(qm_last_error()); return 1; }
 *   if (qm_engine_apply_yaml(engine, cluster_yaml, "cluster.yaml") != QM_OK)
 *     puts(qm_engine_last_error(engine));
 *   int cycles = 0;
 *   qm_engine_run_until_stable(engine, 100, &cycles);
 *   const qm_event* const* events; size_t n;
 *   qm_engine_events(engine, &events, &n);          // owned by the engine
 *   for (size_t i = 0; i < n; ++i) printf("%s %s\n", qm_event_kind_name(events[i]->kind),
 *                                         events[i]->workload_name);
 *   qm_engine_destroy(engine);
 *
 * Rules that hold for every function:
 *  - Every function returns a `qm_status` (0 = QM_OK) unless it says otherwise, and never lets a
 *    C++ exception out. On an error nothing changed, and the message is kept: per engine for
 *    functions that take one (`qm_engine_last_error`), per thread for the others and for a NULL
 *    engine (`qm_last_error`). After a caught C++ exception (running out of memory) the engine may
 *    be half changed, so it refuses every later call with QM_FAILED_PRECONDITION naming the first
 *    failure; destroy it (docs/c-api.md, "Exceptions and re-entrancy").
 *  - Strings are NUL-terminated UTF-8; invalid UTF-8 is QM_INVALID_ARGUMENT, a text longer than
 *    512 MiB is QM_RESOURCE_EXHAUSTED, a NULL required pointer QM_INVALID_ARGUMENT, and running out
 *    of memory QM_RESOURCE_EXHAUSTED (never an abort). Inputs are read during
 *    the call only: the caller keeps ownership of everything it passes.
 *  - Memory returned through a `char**` out-parameter belongs to the caller, who frees it with
 *    `qm_free`. Pointers returned as `const` (events, error messages) belong to the library and
 *    stay valid until the next call on the same engine (or, for `qm_last_error`, the next call on
 *    the same thread); `qm_engine_event_cycle_queues` is the one call that leaves the event array
 *    valid.
 *  - Amounts are integers in the resource's base unit: milli-CPU for "cpu", bytes for memory and
 *    storage, counts otherwise ("nvidia.com/gpu": 1 = one GPU).
 *  - An engine is not thread-safe. Calls on one engine must not overlap: serialize them with a
 *    lock. A call that finds another call of the same engine still running on another thread
 *    fails with QM_FAILED_PRECONDITION instead of corrupting the engine; this detection is a
 *    safety net, not a lock (two calls can still race on `qm_engine_last_error`). Different
 *    engines may be used from different threads freely.
 *  - Debug builds of the library (without NDEBUG) keep each destroyed engine's handle as a marked
 *    tombstone (the 256 most recent), so a call on a destroyed engine fails with
 *    QM_FAILED_PRECONDITION instead of touching freed memory. Release builds do not check:
 *    a call on a destroyed engine is undefined behaviour there.
 *  - Structs can grow without breaking compiled programs (docs/c-api.md §ABI rules). A struct the
 *    caller fills or allocates starts with `unsigned int version`: initialize it with its
 *    `QM_*_INIT` macro (or set `version` to its `QM_*_VERSION`); the library reads and writes only
 *    the fields of that version and takes the defaults for fields added later. Version 0 (a
 *    zeroed struct) and versions newer than the library are QM_INVALID_ARGUMENT. Arrays a
 *    versioned struct points to have the layout of that version. Structs the library owns (events)
 *    are handed out as arrays of pointers, so they may grow at the end.
 */
#ifndef QM_C_QUARTERMASTER_H_
#define QM_C_QUARTERMASTER_H_

#include <stddef.h>
#include <stdint.h>

#if defined(QM_C_BUILDING)
#define QM_C_EXPORT __attribute__((visibility("default")))
#else
#define QM_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this header's API. Incremented when functions or fields are added; a program
 * compares it with `qm_api_version()` to detect a library older than its header.
 *   1: the first API.
 *   2: anti-thrash: `qm_engine_create_with_config`, `qm_engine_next_timed_change`,
 *      `QM_EVENT_PREEMPTION_CYCLE` and `qm_engine_event_cycle_queues`, and the `preemptions` key
 *      of the workload and explain JSON. No struct changed size: a program built against
 *      version 1 runs unchanged on this library.
 *   3: the ABI rules (docs/c-api.md §ABI rules), SONAME libquartermaster_c.so.1: a `version` first
 *      member and `QM_*_INIT` in every struct the caller fills; `qm_engine_events` hands out
 *      pointers to events; `QM_NO_WORKLOAD` for "no preemptor"; `qm_workload` version 2
 *      (`inactive`), `qm_cycle_summary` version 2 (`settled`), `qm_engine_run_until_settled`;
 *      deactivate/activate, reclaimable pods, `qm_engine_assign_flavors_json`,
 *      `qm_engine_preemption_targets_json`, `qm_engine_cohort_json` and `cohorts` in
 *      `qm_engine_list_json`. Programs built against versions 1 and 2 must be rebuilt.
 *   4: Kueue's waitForPodsReady: `qm_engine_set_pods_ready`, and `waitForPodsReady` in the
 *      Configuration of `qm_engine_create_with_config`. Additive: nothing changed size.
 *   5: LocalQueue status: `qm_engine_local_queue_json`, and `localQueues` in
 *      `qm_engine_list_json`. Additive.
 *   6: forecasts and what-if answers: `qm_engine_forecast_json`, `qm_engine_what_if_json`.
 *      Additive.
 *   7: `qm_engine_reserve`. Additive. */
#define QM_C_API_VERSION 7

/** A packed workload handle that names no workload (no valid handle has this value): the
 * `preemptor` of an event without one. Since API version 3; handle 0 is a real workload's. */
#define QM_NO_WORKLOAD UINT64_MAX

/** Status codes: the canonical codes of absl::Status (same numbers). */
typedef enum qm_status {
  QM_OK = 0,
  QM_CANCELLED = 1,
  QM_UNKNOWN = 2,
  QM_INVALID_ARGUMENT = 3,
  QM_DEADLINE_EXCEEDED = 4,
  QM_NOT_FOUND = 5,
  QM_ALREADY_EXISTS = 6,
  QM_PERMISSION_DENIED = 7,
  QM_RESOURCE_EXHAUSTED = 8,
  QM_FAILED_PRECONDITION = 9,
  QM_ABORTED = 10,
  QM_OUT_OF_RANGE = 11,
  QM_UNIMPLEMENTED = 12,
  QM_INTERNAL = 13,
  QM_UNAVAILABLE = 14,
  QM_DATA_LOSS = 15,
  QM_UNAUTHENTICATED = 16
} qm_status;

/** An engine (qm::Engine): opaque; created by `qm_engine_create`/`qm_engine_restore`, freed by
 * `qm_engine_destroy`. */
typedef struct qm_engine qm_engine;

/* ---- Library ---------------------------------------------------------------------------------- */

/** The library's version, e.g. "0.1.0". Static storage: never free it. */
QM_C_EXPORT const char* qm_version(void);
/** The library's `QM_C_API_VERSION`. */
QM_C_EXPORT int qm_api_version(void);
/** 1 when the library checks for calls on destroyed engines (a debug build), else 0. */
QM_C_EXPORT int qm_debug_checks(void);
/** 1 when the library includes the simulator (`qm_simulate`), else 0. */
QM_C_EXPORT int qm_has_simulator(void);
/** "OK", "INVALID_ARGUMENT", ... for a `qm_status` value; "UNKNOWN_STATUS" for other numbers.
 * Static storage. */
QM_C_EXPORT const char* qm_status_name(int status);
/** The message of this thread's latest failed call that had no engine to keep it (creation,
 * restore, HyperPod, simulate, or a NULL engine); "" when there is none. Owned by the library,
 * valid until the next call on this thread. */
QM_C_EXPORT const char* qm_last_error(void);
/** Frees memory the library returned through a `char**` out-parameter. NULL is a no-op. */
QM_C_EXPORT void qm_free(void* memory);

/* ---- Engine ----------------------------------------------------------------------------------- */

/** Engine configuration. `QM_ENGINE_OPTIONS_INIT` (or a NULL pointer) means Kueue's defaults. */
#define QM_ENGINE_OPTIONS_VERSION 1
#define QM_ENGINE_OPTIONS_INIT {QM_ENGINE_OPTIONS_VERSION, 0, 0, NULL, 0}
typedef struct qm_engine_options {
  unsigned int version; /**< QM_ENGINE_OPTIONS_VERSION (the layout the caller was built with) */
  /** Kueue `fairSharing.enable`: 1 enables fair sharing with both preemption strategies. */
  int fair_sharing;
  /** 1: the status and preemption messages HyperPod's Kueue writes (MessageStyle::kLegacy). */
  int legacy_messages;
  /** Kueue feature gates as on its command line, "Gate=true,Other=false"; NULL or "" = defaults.
   * An unknown gate or an unsupported value is QM_INVALID_ARGUMENT naming the gate. */
  const char* feature_gates;
  /** The engine's manual clock at creation, microseconds since the Unix epoch (0 = the epoch). */
  int64_t start_time_unix_micros;
} qm_engine_options;

/** Creates an engine. `options` may be NULL. On success `*out` is the new engine, which the
 * caller frees with `qm_engine_destroy`; on error `*out` is NULL and `qm_last_error()` says why. */
QM_C_EXPORT qm_status qm_engine_create(const qm_engine_options* options, qm_engine** out);
/** `qm_engine_create` plus the settings of a Kueue `Configuration` document (YAML or JSON text;
 * apiVersion config.kueue.x-k8s.io/v1beta1 or v1beta2), as a cluster file or `qm simulate` reads
 * it: `fairSharing` (with `preemptionStrategies`), `featureGates`, and Quartermaster's
 * `antiThrash` block (docs/c-api.md §Anti-thrash):
 *
 *   apiVersion: config.kueue.x-k8s.io/v1beta1
 *   kind: Configuration
 *   antiThrash:
 *     minRuntime: [{duration: 2h, reasons: [InCohortFairSharing]}]
 *     cycleDetection: {enable: true, window: 1h}
 *
 * `configuration` NULL or "" is `qm_engine_create(options, out)`. It must hold that one document
 * and nothing else (apply objects with `qm_engine_apply_yaml`). Settings given twice are an error
 * rather than one silently winning: `options->feature_gates` together with `featureGates`, or
 * `options->fair_sharing` 1 with `fairSharing.enable: false`. An invalid field is
 * QM_INVALID_ARGUMENT naming `source_name` (NULL: "<configuration>"), the line and the field, e.g.
 * "config.yaml:4: Configuration: antiThrash.minRuntime[0].duration: must be more than 0".
 * Since API version 2. */
QM_C_EXPORT qm_status qm_engine_create_with_config(const qm_engine_options* options,
                                                   const char* configuration,
                                                   const char* source_name, qm_engine** out);
/** Frees an engine and everything it returned as `const`. NULL is a no-op. */
QM_C_EXPORT void qm_engine_destroy(qm_engine* engine);
/** The message of the engine's latest failed call; "" after a call that succeeded. Owned by the
 * engine, valid until its next call. For a NULL or destroyed engine, the thread's message. */
QM_C_EXPORT const char* qm_engine_last_error(const qm_engine* engine);

/** The engine's clock, microseconds since the Unix epoch. */
QM_C_EXPORT qm_status qm_engine_now(qm_engine* engine, int64_t* unix_micros);
/** Moves the engine's manual clock (submissions, admissions and evictions are stamped with it). */
QM_C_EXPORT qm_status qm_engine_set_now(qm_engine* engine, int64_t unix_micros);
/** Makes room for `workloads` workloads in all, pending or holding quota (qm::Engine::Reserve):
 * their records, name index and admission records are taken from the system now and touched, so
 * that up to that many, submissions and admissions neither grow them nor fault in fresh pages.
 * Changes no decision and nothing `qm_engine_save` writes. QM_INVALID_ARGUMENT for a negative
 * count or one above 2^32 - 2; QM_RESOURCE_EXHAUSTED when that many would need more memory than
 * the machine has or an allocation fails. Since API version 7. */
QM_C_EXPORT qm_status qm_engine_reserve(qm_engine* engine, int64_t workloads);
/** When the next anti-thrash timer runs out (the end of a minimum runtime before preemption, or of
 * a borrow back-off), or, with `waitForPodsReady` (since API version 4), a pods-ready deadline or a
 * requeue back-off ends: after it a held-back workload may be admitted or may preempt, so a host that
 * moves time itself runs a cycle then. `*has` 1 and `*unix_micros` that instant, or `*has` 0 and
 * `*unix_micros` 0 when nothing is pending (always, with the anti-thrash policies off). The instant
 * may be in the past when no cycle has run since, and the cycle may change nothing.
 * Since API version 2. */
QM_C_EXPORT qm_status qm_engine_next_timed_change(qm_engine* engine, int64_t* unix_micros,
                                                  int* has);

/* ---- Objects from text ------------------------------------------------------------------------ */

/** Applies every object of a Kueue manifest (YAML or JSON: one document, a stream, a `List`, or a
 * plain list; HyperPod policies are expanded; see qm/io/manifest.h) in one all-or-nothing
 * transaction. Workloads are submitted (or updated). `source_name` (may be NULL: "<input>") names
 * the text in errors, e.g. "cluster.yaml:14: ClusterQueue/eng: spec...: ...". */
QM_C_EXPORT qm_status qm_engine_apply_yaml(qm_engine* engine, const char* text,
                                           const char* source_name);

/* ---- Objects from plain structs --------------------------------------------------------------- */

/** Kueue ResourceFlavor (name only: nodeLabels and taints are read from YAML). */
#define QM_RESOURCE_FLAVOR_VERSION 1
#define QM_RESOURCE_FLAVOR_INIT {QM_RESOURCE_FLAVOR_VERSION, NULL}
typedef struct qm_resource_flavor {
  unsigned int version; /**< QM_RESOURCE_FLAVOR_VERSION */
  const char* name;
} qm_resource_flavor;

/** Quota of one resource in one flavor (an array element: its layout is that of the
 * `qm_cluster_queue` version pointing to it). */
typedef struct qm_resource_quota {
  const char* resource;
  int64_t nominal_quota;
  int has_borrowing_limit; /**< 0 = no limit */
  int64_t borrowing_limit;
  int has_lending_limit; /**< 0 = lends everything */
  int64_t lending_limit;
} qm_resource_quota;

/** One flavor of the resource group, its quotas listing the covered resources in order (layout:
 * that of the `qm_cluster_queue` version). */
typedef struct qm_flavor_quotas {
  const char* flavor;
  const qm_resource_quota* resources;
  size_t resource_count;
} qm_flavor_quotas;

/** Preemption policies (Kueue `spec.preemption`). */
typedef enum qm_within_cluster_queue {
  QM_WITHIN_CQ_NEVER = 0,
  QM_WITHIN_CQ_LOWER_PRIORITY = 1,
  QM_WITHIN_CQ_LOWER_OR_NEWER_EQUAL_PRIORITY = 2
} qm_within_cluster_queue;
typedef enum qm_reclaim_within_cohort {
  QM_RECLAIM_NEVER = 0,
  QM_RECLAIM_LOWER_PRIORITY = 1,
  QM_RECLAIM_ANY = 2
} qm_reclaim_within_cohort;

/** Kueue ClusterQueue with one resource group; it admits workloads from every namespace (an empty
 * namespaceSelector). Other fields (several groups, fungibility, ...) are read from YAML. */
#define QM_CLUSTER_QUEUE_VERSION 1
#define QM_CLUSTER_QUEUE_INIT {QM_CLUSTER_QUEUE_VERSION, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0}
typedef struct qm_cluster_queue {
  unsigned int version; /**< QM_CLUSTER_QUEUE_VERSION */
  const char* name;
  const char* cohort; /**< NULL or "" = standalone */
  const char* const* covered_resources;
  size_t covered_resource_count;
  const qm_flavor_quotas* flavors; /**< in preference order */
  size_t flavor_count;
  /* Plain ints holding enum values: any other value is QM_INVALID_ARGUMENT, never undefined. */
  int within_cluster_queue;  /**< a qm_within_cluster_queue value */
  int reclaim_within_cohort; /**< a qm_reclaim_within_cohort value */
  /** Fair-sharing weight in thousandths; 0 = Kueue's default 1 (1000). Use
   * `qm_engine_apply_yaml` for a weight of exactly 0. */
  int64_t fair_sharing_weight_milli;
} qm_cluster_queue;

/** Kueue LocalQueue. */
#define QM_LOCAL_QUEUE_VERSION 1
#define QM_LOCAL_QUEUE_INIT {QM_LOCAL_QUEUE_VERSION, NULL, NULL, NULL}
typedef struct qm_local_queue {
  unsigned int version; /**< QM_LOCAL_QUEUE_VERSION */
  const char* namespace_name; /**< NULL or "" = "default" */
  const char* name;
  const char* cluster_queue;
} qm_local_queue;

/** Kueue WorkloadPriorityClass. */
#define QM_PRIORITY_CLASS_VERSION 1
#define QM_PRIORITY_CLASS_INIT {QM_PRIORITY_CLASS_VERSION, NULL, 0}
typedef struct qm_priority_class {
  unsigned int version; /**< QM_PRIORITY_CLASS_VERSION */
  const char* name;
  int32_t value;
} qm_priority_class;

/** One request of a pod: `amount` of `resource` in its base unit (layout: that of the
 * `qm_workload` version). */
typedef struct qm_resource_amount {
  const char* resource;
  int64_t amount;
} qm_resource_amount;

/** One pod set: `count` identical pods with the requests of one pod (layout: that of the
 * `qm_workload` version). */
typedef struct qm_pod_set {
  const char* name; /**< NULL or "" = "main" */
  int32_t count;
  int32_t min_count; /**< partial admission: the smallest acceptable count; 0 = none */
  const qm_resource_amount* requests;
  size_t request_count;
} qm_pod_set;

/** Kueue Workload.
 *   version 1: the fields up to `pod_set_count`.
 *   version 2 (API version 3): `inactive`; a version-1 caller gets 0 (active). */
#define QM_WORKLOAD_VERSION 2
#define QM_WORKLOAD_INIT {QM_WORKLOAD_VERSION, NULL, NULL, NULL, NULL, 0, 0, 0, NULL, 0, 0}
typedef struct qm_workload {
  unsigned int version; /**< QM_WORKLOAD_VERSION, or 1 for the layout without `inactive` */
  const char* namespace_name; /**< NULL or "" = "default" */
  const char* name;
  const char* queue_name; /**< the LocalQueue in its namespace */
  const char* priority_class; /**< a WorkloadPriorityClass name; NULL or "" = none */
  int has_priority; /**< 1: `priority` is spec.priority (overrides the class) */
  int32_t priority;
  /** metadata.creationTimestamp in microseconds since the epoch; 0 = the engine's clock now. */
  int64_t creation_time_unix_micros;
  const qm_pod_set* pod_sets;
  size_t pod_set_count;
  /** Since version 2. 1: Kueue's `spec.active: false`: the workload is known but waits in no
   * queue until `qm_engine_activate`. */
  int inactive;
} qm_workload;

/** Creates or updates one object, validated as by `qm_engine_apply_yaml`. */
QM_C_EXPORT qm_status qm_engine_apply_flavor(qm_engine* engine, const qm_resource_flavor* flavor);
QM_C_EXPORT qm_status qm_engine_apply_cluster_queue(qm_engine* engine, const qm_cluster_queue* cq);
QM_C_EXPORT qm_status qm_engine_apply_local_queue(qm_engine* engine, const qm_local_queue* lq);
QM_C_EXPORT qm_status qm_engine_apply_priority_class(qm_engine* engine,
                                                     const qm_priority_class* priority_class);
/** Submits a new workload, pending in its LocalQueue's ClusterQueue. `*handle` (may be NULL)
 * receives its packed 64-bit handle (qm::WorkloadHandle::Pack). */
QM_C_EXPORT qm_status qm_engine_submit(qm_engine* engine, const qm_workload* workload,
                                       uint64_t* handle);

/* ---- Workloads: by namespace/name, or by packed handle (`_h` functions) ----------------------- */

/** The packed handle of a workload; QM_NOT_FOUND when the engine does not know it. A handle
 * whose workload was deleted is stale: every `_h` function rejects it with QM_NOT_FOUND. */
QM_C_EXPORT qm_status qm_engine_find_workload(qm_engine* engine, const char* namespace_name,
                                              const char* name, uint64_t* handle);
/** The workload completed: its quota is released. */
QM_C_EXPORT qm_status qm_engine_finish(qm_engine* engine, const char* namespace_name,
                                       const char* name);
QM_C_EXPORT qm_status qm_engine_finish_h(qm_engine* engine, uint64_t handle);
/** The host evicts an admitted workload (`reason`: a CamelCase word, e.g. "NodeFailures";
 * `message` may be NULL). It keeps its quota until `qm_engine_confirm_evicted`. */
QM_C_EXPORT qm_status qm_engine_evict(qm_engine* engine, const char* namespace_name,
                                      const char* name, const char* reason, const char* message);
QM_C_EXPORT qm_status qm_engine_evict_h(qm_engine* engine, uint64_t handle, const char* reason,
                                        const char* message);
/** An evicted or preempted workload has stopped: its quota is released and it is requeued. */
QM_C_EXPORT qm_status qm_engine_confirm_evicted(qm_engine* engine, const char* namespace_name,
                                                const char* name);
QM_C_EXPORT qm_status qm_engine_confirm_evicted_h(qm_engine* engine, uint64_t handle);
/** Confirms every evicting workload; `*count` (may be NULL) receives how many. */
QM_C_EXPORT qm_status qm_engine_confirm_all_evicted(qm_engine* engine, int* count);
/** Deletes a workload; any quota it held is released at once. */
QM_C_EXPORT qm_status qm_engine_delete_workload(qm_engine* engine, const char* namespace_name,
                                                const char* name);
QM_C_EXPORT qm_status qm_engine_delete_workload_h(qm_engine* engine, uint64_t handle);
/** Kueue's `spec.active = false`: a pending workload leaves its queue (QM_EVENT_DEACTIVATED); one
 * holding quota is evicted with reason "Deactivated" (QM_EVENT_EVICTED) and is inactive once
 * confirmed. Since API version 3. */
QM_C_EXPORT qm_status qm_engine_deactivate(qm_engine* engine, const char* namespace_name,
                                           const char* name);
QM_C_EXPORT qm_status qm_engine_deactivate_h(qm_engine* engine, uint64_t handle);
/** `spec.active = true`: an inactive workload goes back to its queue (QM_EVENT_ACTIVATED, reason
 * "Reactivated"); a no-op for an active one. Since API version 3. */
QM_C_EXPORT qm_status qm_engine_activate(qm_engine* engine, const char* namespace_name,
                                         const char* name);
QM_C_EXPORT qm_status qm_engine_activate_h(qm_engine* engine, uint64_t handle);
/** Kueue's `status.reclaimablePods`: `count` pods of pod set `pod_set` (NULL or "" = "main") have
 * finished. A workload holding quota gives their quota back while the rest run (free for the next
 * cycle), and `count` may then only grow; a pending workload requests that many pods fewer.
 * `count` is at most the pod set's count (else QM_INVALID_ARGUMENT; QM_FAILED_PRECONDITION for a
 * finished workload). Since API version 3. */
QM_C_EXPORT qm_status qm_engine_set_reclaimable_pods(qm_engine* engine, const char* namespace_name,
                                                     const char* name, const char* pod_set,
                                                     int32_t count);
QM_C_EXPORT qm_status qm_engine_set_reclaimable_pods_h(qm_engine* engine, uint64_t handle,
                                                       const char* pod_set, int32_t count);
/** Kueue's PodsReady condition (qm::Engine::SetPodsReady): `ready` non-zero when every pod of a
 * workload holding quota is running and ready, zero when one stopped being ready after they all
 * were. With `waitForPodsReady` in the Configuration, a workload not ready in time is evicted with
 * reason "PodsReadyTimeout" by a later cycle and requeued after a back-off (docs/semantics.md
 * §1.7.2). QM_FAILED_PRECONDITION for a workload that holds no quota. Since API version 4. */
QM_C_EXPORT qm_status qm_engine_set_pods_ready(qm_engine* engine, const char* namespace_name,
                                               const char* name, int ready);
QM_C_EXPORT qm_status qm_engine_set_pods_ready_h(qm_engine* engine, uint64_t handle, int ready);

/* ---- Scheduling and events -------------------------------------------------------------------- */

/** What one call's cycles decided; the caller allocates it, the library fills the fields of its
 * `version`.
 *   version 1: `cycle` to `pending`.
 *   version 2 (API version 3): `settled`. */
#define QM_CYCLE_SUMMARY_VERSION 2
#define QM_CYCLE_SUMMARY_INIT {QM_CYCLE_SUMMARY_VERSION, 0, 0, 0, 0, 0, 0}
typedef struct qm_cycle_summary {
  unsigned int version; /**< QM_CYCLE_SUMMARY_VERSION, or 1 for the layout without `settled` */
  uint64_t cycle;   /**< number of the (last) cycle run; 1 for the first */
  int64_t cycles;   /**< cycles run by this call */
  int64_t admitted;
  int64_t preempted;
  int64_t pending;  /**< heads considered and not admitted (last cycle) */
  /** Since version 2. 1: the last cycle changed nothing (admitted, evicted and parked nothing);
   * 0 after `qm_engine_run_until_settled` means it stopped at `max_cycles` with work left. */
  int settled;
} qm_cycle_summary;

/** Runs one scheduling cycle. `summary` may be NULL. Its events: `qm_engine_events`. */
QM_C_EXPORT qm_status qm_engine_schedule_cycle(qm_engine* engine, qm_cycle_summary* summary);
/** Runs cycles until one changes nothing, at most `max_cycles` (> 0); `*cycles` (may be NULL)
 * receives how many ran. The events of all of them: `qm_engine_events`. */
QM_C_EXPORT qm_status qm_engine_run_until_stable(qm_engine* engine, int max_cycles, int* cycles);
/** `qm_engine_run_until_stable` that says whether the run settled: `summary` (required, its
 * `version` set) receives the number of the last cycle, the cycles run, the admissions and
 * preemptions summed over them, the last cycle's pending count and (version 2) `settled`, 0 when
 * it stopped at `max_cycles` while cycles still changed something. Since API version 3. */
QM_C_EXPORT qm_status qm_engine_run_until_settled(qm_engine* engine, int max_cycles,
                                                  qm_cycle_summary* summary);

typedef enum qm_event_kind {
  QM_EVENT_ADMITTED = 0,    /**< start the pods on the flavors of `pod_sets` */
  QM_EVENT_PREEMPTED = 1,   /**< stop the pods (`preemptor` needs room), then confirm */
  QM_EVENT_EVICTED = 2,     /**< stop the pods (`reason`), then confirm */
  QM_EVENT_REQUEUED = 3,
  QM_EVENT_FINISHED = 4,
  QM_EVENT_DEACTIVATED = 5,
  QM_EVENT_ACTIVATED = 6,
  QM_EVENT_DELETED = 7,
  /** Only with cycle detection on (`antiThrash.cycleDetection`, since API version 2): the
   * preemption of `workload` by `preemptor` just reported (the PREEMPTED event before it) closed a
   * cycle. `reason` "WorkloadPreemptionCycle": the preemptor had been preempted by this workload
   * before; "ClusterQueuePreemptionCycle": ClusterQueues preempted each other in a ring within the
   * window. `preemption_reason` is that preemption's; the ClusterQueues of the cycle:
   * `qm_engine_event_cycle_queues`. Nothing to stop or confirm: a host may alert, change policy,
   * or stop. */
  QM_EVENT_PREEMPTION_CYCLE = 8
} qm_event_kind;

/** "Admitted", "Preempted", ... ("PreemptionCycle") for a `qm_event_kind` value; "Unknown" for
 * other numbers. Static storage. */
QM_C_EXPORT const char* qm_event_kind_name(int kind);

/** The flavor one resource of an admitted pod set got. */
typedef struct qm_flavor_choice {
  const char* resource;
  const char* flavor;
} qm_flavor_choice;

/** One pod set of an admission. Owned by the library, reached through a pointer: it may gain
 * fields at its end in later API versions. */
typedef struct qm_admitted_pod_set {
  uint32_t index; /**< position in the workload's pod sets */
  int32_t count;  /**< admitted pods (below the spec's count under partial admission) */
  const qm_flavor_choice* const* flavors; /**< `flavor_count` pointers */
  size_t flavor_count;
} qm_admitted_pod_set;

/** One event (qm::Event). Every string is non-NULL ("" when absent). Owned by the library and
 * handed out as an array of pointers (`qm_engine_events`), never as an array of structs, so later
 * API versions may add fields at its end: read a field added in version N only when
 * `qm_api_version() >= N`. */
typedef struct qm_event {
  uint64_t sequence; /**< strictly increasing over the engine's life */
  qm_event_kind kind;
  uint64_t workload;          /**< packed handle */
  const char* workload_name;  /**< "namespace/name" (also for QM_EVENT_DELETED) */
  const char* cluster_queue;
  int64_t time_unix_micros;
  const char* reason;             /**< Kueue's condition reason */
  const char* preemption_reason;  /**< PREEMPTED, PREEMPTION_CYCLE: InClusterQueue, ... */
  /** PREEMPTED, PREEMPTION_CYCLE: packed handle of the preemptor; else QM_NO_WORKLOAD. */
  uint64_t preemptor;
  const char* preemptor_name;
  const char* message;
  const qm_admitted_pod_set* const* pod_sets; /**< ADMITTED only: `pod_set_count` pointers */
  size_t pod_set_count;
} qm_event;

/** The events of the engine's latest call that changed it, in order: `*events` is an array of
 * `*count` pointers (read `events[i]->kind`). The array, the events and their strings are owned by
 * the engine and valid until the next call on the engine (any call but
 * `qm_engine_event_cycle_queues`). */
QM_C_EXPORT qm_status qm_engine_events(qm_engine* engine, const qm_event* const** events,
                                       size_t* count);
/** The ClusterQueues of event `index` of the array the latest `qm_engine_events` call returned, in
 * preemption order (each preempted in the next, the last in the first), for a
 * QM_EVENT_PREEMPTION_CYCLE event; `*count` 0 (`*names` NULL) for other kinds. The names belong
 * to the engine and live as long as that array; unlike every other call, this one leaves the
 * array valid, so a host can call it while walking the events. QM_OUT_OF_RANGE when `index` is
 * not below that call's count. Since API version 2. */
QM_C_EXPORT qm_status qm_engine_event_cycle_queues(qm_engine* engine, size_t index,
                                                   const char* const** names, size_t* count);
/** The same events as a JSON array (documented keys: docs/c-api.md §Events JSON); the caller frees
 * `*json` with `qm_free`. */
QM_C_EXPORT qm_status qm_engine_events_json(qm_engine* engine, char** json);

/* ---- Queries (JSON; the caller frees `*json` with `qm_free`) ---------------------------------- */

/** One workload: name, state, priority, clusterQueue, reason, message, admission, and (since API
 * version 2) `preemptions`, what preemption did to it and what it did to others (docs/c-api.md
 * §Workload JSON). */
QM_C_EXPORT qm_status qm_engine_workload_json(qm_engine* engine, const char* namespace_name,
                                              const char* name, char** json);
/** One ClusterQueue: cohort, active, usage per (flavor, resource), pending/admitted workloads. */
QM_C_EXPORT qm_status qm_engine_cluster_queue_json(qm_engine* engine, const char* name,
                                                   char** json);
/** One LocalQueue (`namespace_name` NULL or "" = "default"): Kueue's LocalQueue status, as its
 * controller would have settled it: "active", "reason", "message" (the Active condition),
 * "pendingWorkloads", "reservingWorkloads", "admittedWorkloads", and "flavorsReservation" /
 * "flavorsUsage" ([{"name": flavor, "resources": [{"name", "total"}]}], amounts in base units:
 * milli for cpu, bytes for memory, units otherwise). QM_NOT_FOUND for an unknown queue. Since API
 * version 5 (docs/c-api.md §LocalQueue JSON). */
QM_C_EXPORT qm_status qm_engine_local_queue_json(qm_engine* engine, const char* namespace_name,
                                                 const char* name, char** json);
/** Every workload, ClusterQueue, (since API version 3) cohort and (since API version 5) LocalQueue
 * name: {"workloads": [...], "clusterQueues": [...], "cohorts": [...], "localQueues": ["ns/name"]}. */
QM_C_EXPORT qm_status qm_engine_list_json(qm_engine* engine, char** json);
/** Why a workload is where it is (what `qm explain -o json` prints; with a `preemptions` section
 * once it was preempted or preempted another). */
QM_C_EXPORT qm_status qm_engine_explain_json(qm_engine* engine, const char* namespace_name,
                                             const char* name, char** json);
/** When each pending workload is expected to be admitted (docs/forecast.md; not Kueue): the report
 * `qm forecast -o json` prints. `options` is YAML or JSON (docs/forecast.md §Options as text, e.g.
 * `{"defaultRuntime": ["1h", "2h"], "workloads": ["team-a/train-1"]}`); NULL or "" means the
 * defaults, which give no runtime estimate, so at least `defaultRuntime` is needed in practice. The
 * engine is not changed. Since API version 6. */
QM_C_EXPORT qm_status qm_engine_forecast_json(qm_engine* engine, const char* options, char** json);
/** The smallest checked changes that would admit a pending workload now (docs/forecast.md §What-if;
 * not Kueue): {"admittedAsIs": bool, "answers": [{"kind": "quota", "text", "clusterQueue", "more":
 * [{"flavor", "resource", "amount"}]} or {"kind": "priority", "text", "priority", "preempts": [...]}]}.
 * QM_FAILED_PRECONDITION for a workload that is not pending in a ClusterQueue. The engine is not
 * changed. Since API version 6. */
QM_C_EXPORT qm_status qm_engine_what_if_json(qm_engine* engine, const char* namespace_name, const char* name,
                                             char** json);

/** One cohort (explicit or implicit): {"name", "parent" ("" at a root), "implicit" (no Cohort
 * object, only named by queues or cohorts), "weightedShare"}. QM_NOT_FOUND for an unknown name.
 * Since API version 3. */
QM_C_EXPORT qm_status qm_engine_cohort_json(qm_engine* engine, const char* name, char** json);
/** The flavors the next cycle would give a pending workload in `cluster_queue` (NULL or "" = its
 * own ClusterQueue), with every flavor examined (docs/c-api.md §Flavor assignment JSON):
 * {"mode": "Fit"|"Preempt"|"NoFit", "borrowing", "borrowLevel", "message", "podSets": [{"name",
 * "count", "resources": [{"resource", "flavor", "mode", "borrowLevel"}], "usage"}],
 * "attempts": [...]}. Since API version 3. */
QM_C_EXPORT qm_status qm_engine_assign_flavors_json(qm_engine* engine, const char* namespace_name,
                                                    const char* name, const char* cluster_queue,
                                                    char** json);

/** One (pod set, resource, flavor) choice of a `qm_preemption_query` (layout: that of the query's
 * version). `mode`: 1 the resource needs room in that flavor (Preempt), 2 it fits (Fit). */
typedef struct qm_requested_flavor {
  const char* pod_set; /**< NULL or "" = "main" */
  const char* resource;
  const char* flavor;
  int mode;
} qm_requested_flavor;

/** What `qm_engine_preemption_targets_json` asks: for a pending workload, in `cluster_queue`
 * (NULL or "" = its own), with `flavors` (count 0: the flavors the next cycle would choose, as
 * `qm_engine_assign_flavors_json` gives them). */
#define QM_PREEMPTION_QUERY_VERSION 1
#define QM_PREEMPTION_QUERY_INIT {QM_PREEMPTION_QUERY_VERSION, NULL, NULL, 0}
typedef struct qm_preemption_query {
  unsigned int version; /**< QM_PREEMPTION_QUERY_VERSION */
  const char* cluster_queue;
  const qm_requested_flavor* flavors;
  size_t flavor_count;
} qm_preemption_query;

/** The workloads the next cycle would preempt to admit a pending workload with the flavors of
 * `query` (may be NULL: its own ClusterQueue and chosen flavors), as a JSON array of {"victim":
 * "namespace/name", "handle", "clusterQueue", "reason", "message"}; [] when preemption cannot make
 * room. Since API version 3. */
QM_C_EXPORT qm_status qm_engine_preemption_targets_json(qm_engine* engine,
                                                        const char* namespace_name,
                                                        const char* name,
                                                        const qm_preemption_query* query,
                                                        char** json);

/* ---- Snapshots -------------------------------------------------------------------------------- */

/** The engine's whole state as bytes (docs/snapshot-format.md; binary, may hold NUL bytes). The
 * caller frees `*data` with `qm_free`; `*size` is its length. */
QM_C_EXPORT qm_status qm_engine_save(qm_engine* engine, char** data, size_t* size);
/** A new engine from `qm_engine_save`'s bytes, freed by `qm_engine_destroy`. A truncated,
 * corrupted or newer-version snapshot is an error (`*out` NULL, `qm_last_error()` says why). */
QM_C_EXPORT qm_status qm_engine_restore(const char* data, size_t size, qm_engine** out);

/* ---- HyperPod task governance (docs/hyperpod.md) ---------------------------------------------- */

/** One input document: its text and the name errors use (NULL: "<input N>"). An array passed
 * straight to a function, so its layout is frozen: it never grows (a new layout would come with new
 * functions). */
typedef struct qm_document {
  const char* name;
  const char* text;
} qm_document;

/** `qm hyperpod render`: the Kueue objects HyperPod creates for the policies in `documents`
 * (YAML stream, or a JSON List when `json` is 1). `kueue_config` 1: the Kueue Configuration's
 * fairSharing fragment instead. The caller frees `*out` with `qm_free`. */
QM_C_EXPORT qm_status qm_hyperpod_render(const qm_document* documents, size_t count, int json,
                                         int kueue_config, char** out);
/** `qm hyperpod lint`: the report text (errors, warnings, summary line) in `*report` (freed with
 * `qm_free`); `*exit_code` 0 without errors, 1 with errors. QM_OK whenever the report was made. */
QM_C_EXPORT qm_status qm_hyperpod_lint(const qm_document* documents, size_t count, char** report,
                                       int* exit_code);

/* ---- Simulator (docs/simulate.md) ------------------------------------------------------------- */

#define QM_SIMULATE_OPTIONS_VERSION 1
#define QM_SIMULATE_OPTIONS_INIT {QM_SIMULATE_OPTIONS_VERSION, 0, 0.0}
typedef struct qm_simulate_options {
  unsigned int version;       /**< QM_SIMULATE_OPTIONS_VERSION */
  int buckets;                /**< time-series resolution; 0 = 120 */
  double horizon_seconds;     /**< stop this long after the trace start; 0 = run to the end */
} qm_simulate_options;

/** `qm simulate --output json`: simulates the jobs of `trace_csv` (docs/simulate.md §Trace) on
 * the cluster of `cluster_yaml` (Kueue objects and/or HyperPod policies, plus nodes), with the
 * node failures of `faults_yaml` (NULL = none). `options` may be NULL. `*json` receives the
 * summary (FormatSimulationJson), freed with `qm_free`. QM_UNIMPLEMENTED when the library was
 * built without the simulator (`qm_has_simulator()` is 0). */
QM_C_EXPORT qm_status qm_simulate(const char* cluster_yaml, const char* trace_csv,
                                  const char* faults_yaml, const qm_simulate_options* options,
                                  char** json);

#ifdef __cplusplus
}
#endif

#endif /* QM_C_QUARTERMASTER_H_ */
