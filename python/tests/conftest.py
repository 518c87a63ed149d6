"""Shared fixtures: a small two-team cluster (the reclaim scenario of tests/c/c_api_test.c)."""

from __future__ import annotations

import pytest

CLUSTER = """
- {apiVersion: v1, kind: Namespace, metadata: {name: team-a}}
- {apiVersion: v1, kind: Namespace, metadata: {name: team-b}}
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: gpu}}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {name: team-a}
  spec:
    cohortName: research
    namespaceSelector: {}
    preemption: {reclaimWithinCohort: Any}
    resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
      - name: gpu
        resources: [{name: nvidia.com/gpu, nominalQuota: 16}]
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {name: team-b}
  spec:
    cohortName: research
    namespaceSelector: {}
    resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
      - name: gpu
        resources: [{name: nvidia.com/gpu, nominalQuota: 16}]
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue,
   metadata: {namespace: team-a, name: jobs}, spec: {clusterQueue: team-a}}
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue,
   metadata: {namespace: team-b, name: jobs}, spec: {clusterQueue: team-b}}
"""


def workload(namespace: str, name: str, pods: int, gpus_per_pod: int) -> dict:
    """A Kueue Workload manifest as a dict."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"namespace": namespace, "name": name},
        "spec": {
            "queueName": "jobs",
            "podSets": [
                {
                    "name": "main",
                    "count": pods,
                    "template": {
                        "spec": {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": gpus_per_pod}}}]}
                    },
                }
            ],
        },
    }


@pytest.fixture
def cluster() -> str:
    return CLUSTER
