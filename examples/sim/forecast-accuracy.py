#!/usr/bin/python3
"""Forecast accuracy when nobody new arrives (docs/forecast.md, "Accuracy when nobody new arrives").

`qm simulate --forecast-every D` compares each forecast with what happened in the run, where jobs
keep arriving; a forecast made without arrivals cannot see those. This script measures the other
half of the question: given exact run times and no new arrivals, is the forecast right? For each
sample instant t (every EVERY hours), it cuts the trace to the jobs submitted before t, runs the
same simulation with one forecast sample at the first instant at or after t, and compares every
forecast with what then happens, when nothing arrives after t. Up to t the run is the full trace's
run: the engine never sees a job before its submission.

Usage: forecast-accuracy.py QM CLUSTER TRACE EVERY_HOURS [--min-within SHARE]

Prints one JSON object: samples, forecasts compared, missed (forecast, never admitted) and
unexpected (admitted, not forecast) counts, and the share of compared forecasts whose absolute
error is within 10 % of the actual wait. The median error is within 10 % exactly when that share
is at least one half. With --min-within, exits 1 when the share is below SHARE.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile


def main(argv):
    args = list(argv[1:])
    min_within = None
    if "--min-within" in args:
        i = args.index("--min-within")
        min_within = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 4:
        print("usage: forecast-accuracy.py QM CLUSTER TRACE EVERY_HOURS [--min-within SHARE]", file=sys.stderr)
        return 2
    qm, cluster, trace, every_h = args[0], args[1], args[2], float(args[3])
    if every_h <= 0:
        print("forecast-accuracy: EVERY_HOURS must be positive", file=sys.stderr)
        return 2
    with open(trace, newline="") as f:
        rows = list(csv.reader(f))
    header, jobs = rows[0], rows[1:]
    if not jobs or header[0] != "submit":
        print(f"forecast-accuracy: {trace}: not a trace CSV with a first column 'submit'", file=sys.stderr)
        return 2
    jobs.sort(key=lambda r: float(r[0]))
    last_submit = float(jobs[-1][0])
    totals = {"samples": 0, "compared": 0, "missed": 0, "unexpected": 0, "within": 0.0}
    with tempfile.TemporaryDirectory() as work:
        cut = os.path.join(work, "cut.csv")
        step = every_h * 3600
        t = step
        while t <= last_submit:
            with open(cut, "w", newline="") as f:
                writer = csv.writer(f)
                writer.writerow(header)
                writer.writerows(r for r in jobs if float(r[0]) < t)
            run = subprocess.run([qm, "simulate", cluster, "--trace", cut, "--forecast-every", f"{int(t)}s",
                                  "--output", "json", "--quiet"], capture_output=True, text=True)
            if run.returncode not in (0, 3):  # 3: a livelock was diagnosed; the figures still stand
                print(f"forecast-accuracy: qm simulate failed at t={t / 3600:g} h ({run.returncode}): {run.stderr}",
                      file=sys.stderr)
                return 1
            accuracy = json.loads(run.stdout).get("forecast_accuracy")
            t += step
            if not accuracy or accuracy["samples"] == 0:
                continue
            totals["samples"] += accuracy["samples"]
            totals["missed"] += accuracy["missed"]
            totals["unexpected"] += accuracy["unexpected"]
            compared = accuracy["all"]["compared"]
            totals["compared"] += compared
            totals["within"] += accuracy["all"]["within_10_percent"] * compared
    share = totals["within"] / totals["compared"] if totals["compared"] else 0.0
    print(json.dumps({"cluster": os.path.basename(cluster), "every_h": every_h, "samples": totals["samples"],
                      "compared": totals["compared"], "missed": totals["missed"],
                      "unexpected": totals["unexpected"], "within_10_percent": round(share, 4),
                      "median_within_10_percent": share >= 0.5}))
    if min_within is not None and share < min_within:
        print(f"forecast-accuracy: {share:.4f} of forecasts within 10 %, below {min_within}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
