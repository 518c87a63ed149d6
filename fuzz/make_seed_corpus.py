#!/usr/bin/python3
"""Regenerates the seed corpora under fuzz/corpus/ from the repository's own files.

Run from the repository root with Debian's /usr/bin/python3 (needs python3-yaml). Scenario and
manifest seeds are the smallest scenario files (and their `objects:` written as a multi-document
manifest); policy seeds are the example policies with the harness's leading shape byte; engine seeds
are fixed byte programs (documented in fuzz/targets/engine_events_target.cc); quantity seeds are
quantity strings, each behind a resource byte.
"""
import glob
import os

import yaml

ROOT = os.getcwd()
OUT = os.path.join(ROOT, "fuzz", "corpus")


def write(harness, name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(OUT, harness, name), "wb") as f:
        f.write(data)


def smallest(pattern, count):
    files = sorted(glob.glob(pattern, recursive=True), key=lambda p: (os.path.getsize(p), p))
    return files[:count]


# Scenarios: the 12 smallest scenario files, and their objects as manifests.
for path in smallest("tests/scenarios/**/*.yaml", 12) + ["examples/two-teams.yaml"]:
    text = open(path).read()
    base = os.path.basename(path)
    write("scenario", base, text)
    objects = yaml.safe_load(text).get("objects") or []
    write("manifest", base, yaml.safe_dump_all(objects, sort_keys=False))

# HyperPod policies: byte 0 = file (JSON or YAML), 1 = scheduler shorthand, 2 = quota shorthand.
for path in sorted(glob.glob("examples/hyperpod/policy/*") + glob.glob("tests/hyperpod/data/*.json")
                   + glob.glob("tests/hyperpod/data/*.yaml")):
    write("hyperpod_policy", os.path.basename(path), b"\x00" + open(path, "rb").read())
write("hyperpod_policy", "scheduler-shorthand",
      "\x01PriorityClasses=[{Name=inference,Weight=90},{Name=training,Weight=70}],FairShare=Enabled")
write("hyperpod_policy", "quota-shorthand",
      "\x02ComputeQuotaResources=[{InstanceType=ml.g5.8xlarge,Count=2}],"
      "ResourceSharingConfig={Strategy=LendAndBorrow,BorrowLimit=50},PreemptTeamTasks=LowerPriority\n"
      "TeamName=team-a,FairShareWeight=10\nEnabled")

# Quantities: byte 0 % 3 picks cpu, memory or a GPU-like count.
for i, (res, text) in enumerate([(0, "500m"), (0, "1.5"), (1, "3Gi"), (1, "1e3"), (2, "8"),
                                 (0, "-0.001"), (1, "9223372036854775807"), (2, "1k"),
                                 (0, "0.1"), (1, "512Mi"), (1, "1e-30"), (2, "12E")]):
    write("quantity", f"q{i:02}", bytes([res]) + text.encode())

# Engine programs (opcode bytes: see Step() in engine_events_target.cc). Cluster shape, then ops.
SUBMIT, FINISH, EVICT, CONFIRM, CONFIRM_ALL, CYCLE, STABLE, ADVANCE, QUOTA, DELETE, RECREATE, SAVE = (
    0, 3, 4, 7, 8, 10, 12, 13, 14, 16, 17, 19)
cluster = bytes([0x0b]) + bytes([0x12, 3, 8, 2, 4]) * 6  # 2 flavors-ish, 3 queues, fair sharing
programs = {
    "submit-cycle": [SUBMIT, 0, 1, 2, 1, 0x09, SUBMIT, 1, 2, 3, 2, 0x1a, CYCLE, STABLE],
    "borrow-reclaim": [SUBMIT, 0, 3, 1, 3, 0x1f, STABLE, SUBMIT, 1, 4, 3, 3, 0x1f, STABLE,
                       CONFIRM_ALL, STABLE, FINISH, 0, 0, STABLE],
    "evict-confirm": [SUBMIT, 0, 5, 2, 0, 0x0a, STABLE, EVICT, 0, 2, CONFIRM, 0, CYCLE],
    "shrink-quota": [SUBMIT, 1, 6, 1, 2, 0x12, STABLE, QUOTA, 1, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                     CYCLE, FINISH, 0, 1, STABLE],
    "delete-recreate": [SUBMIT, 2, 7, 0, 1, 0x08, STABLE, DELETE, 2, 2, DELETE, 3, 1, RECREATE,
                        STABLE],
    "save-restore": [SUBMIT, 0, 8, 3, 1, 0x11, CYCLE, SAVE, 0x40, 0x00, ADVANCE, 0x10, 0x00,
                     SUBMIT, 1, 9, 1, 1, 0x01, STABLE, SAVE, 0x03, 0x01],
}
for name, ops in programs.items():
    write("engine_event", name, cluster + bytes(ops))

# Traces: only when the simulator's trace reader exists (its test data, if any).
for path in smallest("tests/sim/**/*.csv", 8):
    write("trace", os.path.basename(path), open(path, "rb").read())
