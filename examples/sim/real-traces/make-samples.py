#!/usr/bin/python3
"""Writes the small synthetic samples of this folder, one per public trace format, in each format's
own layout (file names, columns, time formats) but with made-up jobs: no row comes from a real trace.

Usage: make-samples.py [OUT_DIR]   (default: the folder of this script). Deterministic: the same
bytes on every run. Standard library only.
"""

import json
import os
import random
import sys
from datetime import datetime, timedelta

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
HOURS = 48  # each sample spans two days


def arrivals(rng, jobs):
    """Submit times (s) over the span, busier by day than by night."""
    times = []
    while len(times) < jobs:
        t = rng.uniform(0, HOURS * 3600)
        if rng.random() < (0.35 if (t // 3600) % 24 < 8 else 1.0):
            times.append(int(t))
    return sorted(times)


def run_time(rng):
    """Log-normal run time around 40 min, 2 min to 12 h."""
    return int(min(12 * 3600, max(120, rng.lognormvariate(7.8, 1.0))))


def openb(rng):
    d = os.path.join(OUT, "openb")
    os.makedirs(d, exist_ok=True)
    models = [("V100M32", 8, 96000, 786432, 4), ("G3", 8, 128000, 786432, 2), ("T4", 2, 64000, 262144, 4)]
    with open(os.path.join(d, "openb_node_list_all_node.csv"), "w") as f:
        f.write("sn,cpu_milli,memory_mib,gpu,model\n")
        n = 0
        for model, gpus, cpu, mem, count in models:
            for _ in range(count):
                f.write("openb-node-%04d,%d,%d,%d,%s\n" % (n, cpu, mem, gpus, model))
                n += 1
        for _ in range(2):
            f.write("openb-node-%04d,32000,262144,0,\n" % n)
            n += 1
    end = HOURS * 3600
    with open(os.path.join(d, "openb_pod_list_sample.csv"), "w") as f:
        f.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                "deletion_time,scheduled_time\n")
        for i, t in enumerate(arrivals(rng, 300)):
            num_gpu = rng.choice([0, 1, 1, 1, 1, 2, 4, 8])
            gpu_milli = rng.choice([1000, 1000, 500, 250]) if num_gpu == 1 else (1000 if num_gpu else 0)
            spec = rng.choice(["", "", "", "V100M32", "V100M32|G3", "T4"]) if num_gpu else ""
            if spec == "T4" and num_gpu > 2:
                spec = ""
            phase = rng.choices(["Succeeded", "Failed", "Running", "Pending"], [70, 15, 10, 5])[0]
            start = t + rng.randint(0, 30)
            stop = min(end, start + run_time(rng))
            if phase == "Running":
                stop = end
            sched = "" if phase == "Pending" else str(start)
            f.write("openb-pod-%04d,%d,%d,%d,%d,%s,%s,%s,%d,%d,%s\n" % (
                i, rng.choice([2000, 4000, 8000, 16000]), rng.choice([8192, 16384, 65536]), num_gpu,
                gpu_milli, spec, rng.choice(["LS", "BE", "Burstable"]), phase, t,
                end if phase == "Pending" else stop, sched))


def stamp(base, seconds):
    return (base + timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S")


def helios(rng):
    d = os.path.join(OUT, "helios")
    os.makedirs(d, exist_ok=True)
    base = datetime(2020, 6, 9, 18, 0, 0)
    with open(os.path.join(d, "cluster_log.csv"), "w") as f:
        f.write("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n")
        for i, t in enumerate(arrivals(rng, 300)):
            vc = rng.choices(["vc-vision", "vc-nlp", "vc-speech"], [5, 3, 2])[0]
            gpus = rng.choice([0, 1, 1, 2, 4, 8, 8, 16])
            state = rng.choices(["COMPLETED", "FAILED", "CANCELLED"], [75, 15, 10])[0]
            wait = rng.randint(0, 600)
            run = run_time(rng)
            if state == "CANCELLED" and rng.random() < 0.5:  # cancelled while pending
                f.write("%d,u%d,%s,%d,%d,%d,%s,%s,,%s,0,%d\n" % (
                    3000000 + i, rng.randint(1, 20), vc, gpus, 4 * max(gpus, 1), max(1, gpus // 8), state,
                    stamp(base, t), stamp(base, t + wait), wait))
                continue
            f.write("%d,u%d,%s,%d,%d,%d,%s,%s,%s,%s,%d,%d\n" % (
                3000000 + i, rng.randint(1, 20), vc, gpus, 4 * max(gpus, 1), max(1, (gpus + 7) // 8), state,
                stamp(base, t), stamp(base, t + wait), stamp(base, t + wait + run), run, wait))


def philly(rng):
    d = os.path.join(OUT, "philly")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "cluster_machine_list"), "w") as f:
        for m in range(4):
            f.write("m%d,8, 24GB\n" % (m + 1))
        for m in range(4, 8):
            f.write("m%d,2, 12GB\n" % (m + 1))
    base = datetime(2017, 10, 3, 0, 0, 0)
    jobs = []
    for i, t in enumerate(arrivals(rng, 150)):
        vc = rng.choices(["vc1", "vc2", "vc3"], [4, 3, 2])[0]
        gpus = rng.choice([1, 1, 2, 4, 8])
        machine = "m%d" % rng.randint(1, 4) if gpus > 2 else "m%d" % rng.randint(1, 8)
        status = rng.choices(["Pass", "Killed", "Failed"], [75, 15, 10])[0]
        attempts = []
        start = t + rng.randint(0, 900)
        for _ in range(rng.choice([1, 1, 1, 2])):
            run = run_time(rng)
            attempts.append({"start_time": stamp(base, start), "end_time": stamp(base, start + run),
                             "detail": [{"ip": machine, "gpus": ["gpu%d" % g for g in range(gpus)]}]})
            start += run + rng.randint(30, 300)
        if status == "Killed" and rng.random() < 0.3:
            attempts = []  # killed before it started
        jobs.append({"status": status, "vc": vc, "jobid": "application_1506638472019_%04d" % i,
                     "attempts": attempts, "submitted_time": stamp(base, t), "user": "u%d" % rng.randint(1, 9)})
    with open(os.path.join(d, "cluster_job_log"), "w") as f:
        json.dump(jobs, f, indent=1)
        f.write("\n")


def pai(rng):
    d = os.path.join(OUT, "pai2020")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "pai_machine_spec.csv"), "w") as f:
        f.write("machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n")
        for m in range(6):
            f.write("machine-%02d,V100M32,96,512,8\n" % m)
        for m in range(6, 10):
            f.write("machine-%02d,T4,96,512,2\n" % m)
    users = ["u%d" % (k + 1) for k in range(4)]
    impossible = False
    with open(os.path.join(d, "pai_job_table.csv"), "w") as jf, \
            open(os.path.join(d, "pai_task_table.csv"), "w") as tf, \
            open(os.path.join(d, "pai_group_tag_table.csv"), "w") as gf:
        for i, t in enumerate(arrivals(rng, 200)):
            job, inst, user = "j%04d" % i, "i%04d" % i, rng.choice(users)
            status = rng.choices(["Terminated", "Failed", "Waiting"], [80, 15, 5])[0]
            start = t + rng.randint(0, 60)
            end = 0 if status == "Waiting" else start + run_time(rng)
            jf.write("%s,%s,%s,%s,%.1f,%.1f\n" % (job, inst, user, status, t, end))
            worker_gpu = rng.choice([25, 50, 100, 100, 800])
            spec = rng.choice(["", "", "V100M32", "T4"])
            if spec == "T4" and worker_gpu > 200:
                # 8 GPUs in one pod fit no T4 machine (2 GPUs): keep one such job, to show the
                # simulator's warning, and send the others to V100M32.
                spec = "T4" if not impossible else "V100M32"
                impossible = True
            for role, count, gpu in [("worker", rng.choice([1, 1, 2, 4]), worker_gpu)] + \
                    ([("ps", 1, 0)] if rng.random() < 0.3 else []):
                tf.write("%s,%s,%.1f,%s,%.1f,%.1f,%.1f,%.1f,%s,%s\n" % (
                    job, role, count, status, start, end, 400.0 if role == "worker" else 600.0,
                    rng.choice([15.0, 29.296875]), ("%.1f" % gpu) if gpu else "", "MISC"))
            gf.write("%s,%s,%s,g%d,%s\n" % (inst, user, spec, rng.randint(1, 5), rng.choice(["bert", "resnet", ""])))


def main():
    rng = random.Random(2026)
    openb(rng)
    helios(rng)
    philly(rng)
    pai(rng)


if __name__ == "__main__":
    main()
