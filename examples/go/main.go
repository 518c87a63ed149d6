// A host loop in Go over the Quartermaster C API through cgo (docs/c-api.md): the reclaim scenario
// of examples/c/host_loop.c. Exits 0 when the engine decided what the comments say.
//
// Build against an installed library:
//   CGO_CFLAGS="$(pkg-config --cflags quartermaster-c)" CGO_LDFLAGS="$(pkg-config --libs quartermaster-c)" go run .
package main

/*
#include <stdlib.h>
#include "qm/c/quartermaster.h"

// Go may not index C arrays: this helper reads the engine's array of event pointers.
static const qm_event* qm_event_at(const qm_event* const* events, size_t i) { return events[i]; }
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"unsafe"
)

const cluster = `
- {kind: Namespace, metadata: {name: team-a}}
- {kind: Namespace, metadata: {name: team-b}}
- {kind: ResourceFlavor, metadata: {name: gpu}}
- kind: ClusterQueue
  metadata: {name: team-a}
  spec:
    cohortName: research
    namespaceSelector: {}
    preemption: {reclaimWithinCohort: Any}
    resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]
- kind: ClusterQueue
  metadata: {name: team-b}
  spec:
    cohortName: research
    namespaceSelector: {}
    resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]
- {kind: LocalQueue, metadata: {namespace: team-a, name: jobs}, spec: {clusterQueue: team-a}}
- {kind: LocalQueue, metadata: {namespace: team-b, name: jobs}, spec: {clusterQueue: team-b}}
`

func workload(namespace, name string, pods int) string {
	return fmt.Sprintf(`
kind: Workload
metadata: {namespace: %s, name: %s}
spec:
  queueName: jobs
  podSets:
  - name: main
    count: %d
    template: {spec: {containers: [{name: c, resources: {requests: {nvidia.com/gpu: 4}}}]}}
`, namespace, name, pods)
}

// Engine wraps the C handle; every failed call becomes a Go error with the engine's message.
type Engine struct{ h *C.qm_engine }

func (e *Engine) check(st C.qm_status) error {
	if st == C.QM_OK {
		return nil
	}
	return fmt.Errorf("%s: %s", C.GoString(C.qm_status_name(C.int(st))), C.GoString(C.qm_engine_last_error(e.h)))
}

func (e *Engine) Apply(yaml, source string) error {
	cy, cs := C.CString(yaml), C.CString(source)
	defer C.free(unsafe.Pointer(cy))
	defer C.free(unsafe.Pointer(cs))
	return e.check(C.qm_engine_apply_yaml(e.h, cy, cs))
}

// Settle runs cycles until stable and returns the events as "Kind namespace/name" lines.
func (e *Engine) Settle() ([]string, error) {
	if err := e.check(C.qm_engine_run_until_stable(e.h, 100, nil)); err != nil {
		return nil, err
	}
	var events **C.qm_event
	var n C.size_t
	if err := e.check(C.qm_engine_events(e.h, &events, &n)); err != nil {
		return nil, err
	}
	out := make([]string, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		ev := C.qm_event_at(events, i)
		out = append(out, C.GoString(C.qm_event_kind_name(C.int(ev.kind)))+" "+C.GoString(ev.workload_name))
	}
	return out, nil
}

func run() error {
	var h *C.qm_engine
	if st := C.qm_engine_create(nil, &h); st != C.QM_OK {
		return fmt.Errorf("create: %s", C.GoString(C.qm_last_error()))
	}
	e := &Engine{h}
	defer C.qm_engine_destroy(h)
	if err := e.Apply(cluster, "cluster"); err != nil {
		return err
	}
	if err := e.Apply(workload("team-b", "train", 4), "train"); err != nil {
		return err
	}
	events, err := e.Settle()
	if err != nil {
		return err
	}
	fmt.Println(strings.Join(events, "\n"))
	if err := e.Apply(workload("team-a", "finetune", 2), "finetune"); err != nil {
		return err
	}
	if events, err = e.Settle(); err != nil {
		return err
	}
	fmt.Println(strings.Join(events, "\n"))
	if len(events) != 1 || events[0] != "Preempted team-b/train" {
		return fmt.Errorf("expected team-b/train to be preempted, got %v", events)
	}
	ns, name := C.CString("team-b"), C.CString("train")
	defer C.free(unsafe.Pointer(ns))
	defer C.free(unsafe.Pointer(name))
	if err := e.check(C.qm_engine_confirm_evicted(h, ns, name)); err != nil {
		return err
	}
	if events, err = e.Settle(); err != nil {
		return err
	}
	fmt.Println(strings.Join(events, "\n"))
	if len(events) != 1 || events[0] != "Admitted team-a/finetune" {
		return fmt.Errorf("expected team-a/finetune to be admitted, got %v", events)
	}
	fmt.Printf("ok: team-a reclaimed its quota (library %s)\n", C.GoString(C.qm_version()))
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
