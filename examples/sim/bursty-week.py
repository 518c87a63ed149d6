#!/usr/bin/env python3
# Writes bursty-week.csv (examples/sim/README.md, "Historical fair share"): eight days of 8-GPU jobs
# in which training and inference keep more work queued than the cluster can run, while research is
# idle for six days and then submits 60 jobs in the first 12 hours of day 7, the case of
# kubernetes-sigs/kueue#9734. The CSV is shipped; this script only documents how it was made
# (Python 3's Mersenne Twister, seed 9734): python3 bursty-week.py > bursty-week.csv
import random
import sys

random.seed(9734)
POD = "1x{cpu=32;memory=256Gi;nvidia.com/gpu=8}"
jobs = []
for team, per_hour in (("training", 3.5), ("inference", 2.0)):
    t = 0.0
    while t < 8 * 86400:
        t += random.expovariate(per_hour / 3600)
        jobs.append((t, team, random.uniform(2, 6) * 3600))
for _ in range(60):
    jobs.append((6 * 86400 + random.uniform(0, 12 * 3600), "research", random.uniform(2, 6) * 3600))
out = sys.stdout
out.write("submit,namespace,team,queue,priority_class,priority,pod_sets,min_count,duration,name\n")
for t, team, duration in sorted(jobs):
    out.write(f"{t:.3f},,{team},,training,,{POD},,{duration:.3f},\n")
