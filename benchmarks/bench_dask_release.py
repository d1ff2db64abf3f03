"""Release generation and certification on a two-worker Dask ``LocalCluster`` against one process.  Run:
``python benchmarks/bench_dask_release.py [--sizes 1,4] [--repeats 3] [--clusters quiet,default]
[--modes generation,audit] [--backends serial,dask,processes]`` (about 8 minutes on an idle 2-core machine;
``--clusters quiet --modes generation``: about 1).

The workload is the vectorised ``median_of_100`` mechanism of ``bench_run_workers.py`` (each release the median of
100 Laplace draws: one (65 536 x 100) draw and sort per block, numpy-bound, single-threaded) at ``N_CERT`` = 521 288
releases (8 blocks of 65 536, the audit part's size there) times each ``--sizes`` factor.  ``--mechanism
sleep_20us`` (20 µs of sleep per release, no CPU) measures the parallel machinery alone.

Modes (each timed serial, on Dask and, with ``processes`` in ``--backends``, on a plain pool of two processes):

- ``generation``: ``count_streamed`` with no events: the releases are drawn block by block and dropped, i.e. the
  release generation throughput of an audit's certification;
- ``counting`` (not by default): ``count_streamed`` with one threshold event (what certification does per side);
- ``audit``: the whole ``audit()`` (selection held in this process plus the certification's two sides); its
  ``certification`` stage seconds are recorded as well.

Clusters: ``quiet`` is :func:`htdp_verify.montecarlo.backends.local_cluster` (worker profiler off, slower event-loop
tick and system monitor); ``default`` a ``LocalCluster`` with Dask's default settings (both two single-threaded
worker processes, no dashboard).  Each cluster is started, warmed (every worker counts a few blocks of the mechanism
first, so imports and first-call costs fall outside the timings), and measured with the serial runs interleaved
(alternating order per repeat) while it sits idle; then closed.  ``processes``: a warmed ``spawn`` pool of two
processes counting the same calls (:func:`call_plan`) without Dask, the machine's own two-process ratio on this
workload (a reference for what any parallel backend can reach now).

Every row has the wall seconds, the CPU seconds of this process and of the workers (``client.run`` of
``time.process_time``; for the pool the tasks' own CPU), the 1-minute load (sampled every 2 s) and the counts; the
counts of all backends are checked identical.  Before each cluster the machine's *capacity* (``bench_run_workers``:
2 on an idle 2-core machine) is measured.  The last lines print one summary per cluster, size and mode: median
serial / median Dask wall-clock ratio over the repeats, the same for the process pool, and the Dask workers' CPU
beyond their tasks' own (Dask's per-task ``thread-cpu`` metric); then one ``SUMMARY`` line with the ratios.
Writes ``benchmarks/results/bench_dask_release.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_run_workers import N_CERT, LoadSampler, capacity  # noqa: E402

from htdp_verify.privacy.streaming import _count_blocks, block_size, call_plan, count_streamed  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "bench_dask_release.json"
D, D2 = np.zeros(10), np.r_[np.zeros(9), 1.0]


def median_mech(data, size, rng):
    """Numpy-bound: each release is the median of 100 noisy copies of the data mean (one sort per release)."""
    m = float(np.mean(data))
    return np.median(m + rng.laplace(0.0, 1.0, size=(size, 100)), axis=1)


def sleepy_mech(data, size, rng):
    """Sleep-bound: 20 µs per release, then a Laplace mean (the parallel machinery's cost alone)."""
    time.sleep(2e-5 * size)
    return float(np.mean(data)) + rng.laplace(0.0, 1.0, size=size)


MECHANISMS = {"median_of_100": median_mech, "sleep_20us": sleepy_mech}


class Above:
    """A threshold event (release > t)."""

    def __init__(self, t):
        self.t = t

    def indicator(self, y):
        return np.asarray(y).reshape(len(y), -1)[:, 0] > self.t


def _pool_call(args):
    """One call of the process pool: counts and the call's CPU seconds."""
    mech, events, entropy, first, k, n = args
    c = time.process_time()
    out = _count_blocks(MECHANISMS[mech], D, events, entropy, first, k, block_size(8), n)
    return out, time.process_time() - c


def pool_count(pool, mech, n, events, rng):
    """``count_streamed`` on a plain process pool (same seeding, same plan as on Dask): counts, tasks' CPU."""
    entropy = int(rng.integers(0, 2**63))
    plan = call_plan(-(-n // block_size(8)), 1 << 30, 2)
    res = list(pool.map(_pool_call, [(mech, events, entropy, s, k, n) for s, k in plan]))
    return np.sum([r[0] for r in res], axis=0).astype(np.int64), sum(r[1] for r in res)


def _task_cpu(dask_worker):
    """CPU seconds the worker's tasks' threads have used so far (Dask's own per-task metrics)."""
    return sum(
        v for k, v in dask_worker.digests_total.items() if k[0] == "execute" and k[-2:] == ("thread-cpu", "seconds")
    )


def _cpu(client):
    """CPU seconds so far: this process, the workers' processes, the workers' task threads."""
    return (
        time.process_time(),
        sum(client.run(time.process_time).values()),
        sum(client.run(_task_cpu).values()),
    )


def measure(mode, backend, mech, n, client, pool):
    """One timed run: wall and CPU seconds, counts (and the audit's stage seconds)."""
    from htdp_verify.claims import PrivacyClaim
    from htdp_verify.privacy import audit

    events = [] if mode == "generation" else [Above(0.05)]
    kw = {"backend": "dask", "client": client} if backend == "dask" else {}
    row = {}
    with LoadSampler() as ls:
        m0, w0, k0 = _cpu(client)
        t0 = time.perf_counter()
        if backend == "processes":
            counts, task_cpu = pool_count(pool, mech, n, events, np.random.default_rng(9))
        elif mode == "audit":
            res = audit(
                MECHANISMS[mech], PrivacyClaim(1.0), pairs=[(D, D2)], n_samples=n, rng=np.random.default_rng(5), **kw
            )
            c = res.counts
            counts = [c.get(k) for k in ("numerator", "denominator", "n_numerator", "n_denominator")]
            row["stage_seconds"] = {k: round(v, 2) for k, v in res.details["seconds"].items()}
            row["epsilon_lb"] = res.epsilon_lb
        else:
            counts = count_streamed(MECHANISMS[mech], D, n, events, np.random.default_rng(9), release_nbytes=8, **kw)
        sec = time.perf_counter() - t0
        m1, w1, k1 = _cpu(client)
    return {
        "seconds": round(sec, 3),
        "cpu_main_s": round(m1 - m0, 2),
        "cpu_workers_s": round(task_cpu if backend == "processes" else w1 - w0, 2),
        "cpu_tasks_s": round(task_cpu if backend == "processes" else k1 - k0, 2),
        "counts": [None if c is None else int(c) for c in counts],
        **row,
        **ls.summary(),
    }


def start_cluster(kind):
    from distributed import LocalCluster

    from htdp_verify.montecarlo.backends import local_cluster

    if kind == "quiet":
        return local_cluster(2)
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)


def run(a):
    from distributed import Client

    mech, rows = a.mechanism, []
    sizes = [int(s) for s in a.sizes.split(",")]
    modes, backends = a.modes.split(","), a.backends.split(",")
    pool = ProcessPoolExecutor(2, mp_context=get_context("spawn")) if "processes" in backends else None
    if pool is not None:
        list(pool.map(_pool_call, [(mech, [], 1, b, 1, 2 * 65536) for b in (0, 1)]))  # start-up and imports
    try:
        for kind in a.clusters.split(","):
            rows.append({**capacity(), "before": kind})
            cluster = start_cluster(kind)
            client = Client(cluster)
            try:
                t = time.perf_counter()  # warm-up: every worker counts blocks of the mechanism once
                count_streamed(MECHANISMS[mech], D, 4 * 65536, [Above(0.0)], np.random.default_rng(0), release_nbytes=8)
                count_streamed(
                    MECHANISMS[mech],
                    D,
                    4 * 65536,
                    [Above(0.0)],
                    np.random.default_rng(0),
                    release_nbytes=8,
                    backend="dask",
                    client=client,
                )
                rows.append({"part": "warm-up", "cluster": kind, "seconds": round(time.perf_counter() - t, 2)})
                for f in sizes:
                    n = f * N_CERT
                    for rep in range(a.repeats):
                        order = [b for b in backends if b != "serial"]
                        order = ["serial", *order] if rep % 2 == 0 else [*order, "serial"]
                        for mode in modes:
                            for backend in order:
                                if backend == "processes" and mode == "audit":
                                    continue  # the pool runs count_streamed's calls only
                                r = measure(mode, backend, mech, n, client, pool)
                                row = {"part": mode, "cluster": kind, "backend": backend, "size": f, "n": n}
                                rows.append({**row, "repeat": rep, "mechanism": mech, **r})
                                print(rows[-1], flush=True)
            finally:
                client.close()
                cluster.close()
    finally:
        if pool is not None:
            pool.shutdown()
    return rows


def summarise(rows):
    """Median serial / median parallel wall ratio per cluster, size and mode (with CPU seconds and load)."""
    out, lines = [], []
    keys = sorted({(r["cluster"], r["size"], r["part"]) for r in rows if "backend" in r})
    for cl, f, mode in keys:
        same = [r for r in rows if r.get("cluster") == cl and r.get("size") == f and r.get("part") == mode]
        by = {b: [r for r in same if r["backend"] == b] for b in ("serial", "dask", "processes")}
        identical = len({tuple(r["counts"]) for r in same}) == 1
        med = {b: statistics.median(r["seconds"] for r in v) for b, v in by.items() if v}
        cpu = {b: statistics.median(r["cpu_main_s"] + r["cpu_workers_s"] for r in v) for b, v in by.items() if v}
        s = {
            "cluster": cl,
            "size": f,
            "n": same[0]["n"],
            "mode": mode,
            "repeats": len(by["serial"]),
            "identical_counts": identical,
            "median_seconds": {b: round(v, 2) for b, v in med.items()},
            "median_cpu_s": {b: round(v, 2) for b, v in cpu.items()},
            "load1_mean": round(statistics.mean(r["load1_mean"] for r in same), 2),
        }
        if "dask" in med:
            s["ratio_dask"] = round(med["serial"] / med["dask"], 2)
            w, k = (sum(r[x] for r in by["dask"]) for x in ("cpu_workers_s", "cpu_tasks_s"))
            s["dask_workers_cpu_beyond_tasks"] = round((w - k) / max(k, 1e-9), 3)
        if "processes" in med:
            s["ratio_processes"] = round(med["serial"] / med["processes"], 2)
        if mode == "audit":
            st = {b: statistics.median(r["stage_seconds"]["certification"] for r in v) for b, v in by.items() if v}
            if "dask" in st:
                s["ratio_dask_certification_stage"] = round(st["serial"] / st["dask"], 2)
        out.append(s)
        lines.append(
            f"{cl} cluster, {mode}, n={s['n']} ({f}x): serial {med['serial']:.2f} s, "
            + (f"dask {med['dask']:.2f} s, ratio {s.get('ratio_dask')}" if "dask" in med else "")
            + (f" (certification stage {s['ratio_dask_certification_stage']})" if mode == "audit" else "")
            + (f"; processes ratio {s['ratio_processes']}" if "processes" in med else "")
            + (
                f"; Dask workers' CPU beyond tasks +{100 * s['dask_workers_cpu_beyond_tasks']:.0f}%"
                if "dask" in med
                else ""
            )
            + f"; CPU s {s['median_cpu_s']}; load {s['load1_mean']}; repeats {s['repeats']}; identical {identical}"
        )
    return out, lines


def headline(summary):
    """One line: the serial / Dask ratios of release generation and of the certification stage per cluster and size,
    with the load and repeats."""
    parts = []
    for s in summary:
        key = {"generation": "ratio_dask", "audit": "ratio_dask_certification_stage"}.get(s["mode"])
        if key in s:
            what = "generation" if s["mode"] == "generation" else "certification stage"
            parts.append(f"{s['cluster']} {what} {s['size']}x {s[key]}")
    loads = [s["load1_mean"] for s in summary]
    reps = max((s["repeats"] for s in summary), default=0)
    return (
        f"SUMMARY serial/Dask (2 workers, median of {reps} repeats): "
        + ", ".join(parts)
        + (f"; load {min(loads)}-{max(loads)}" if loads else "")
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1,4", help="multiples of N_CERT = 521 288 releases")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--clusters", default="quiet,default")
    ap.add_argument("--modes", default="generation,audit", help="of generation, counting, audit")
    ap.add_argument("--backends", default="serial,dask,processes")
    ap.add_argument("--mechanism", default="median_of_100", choices=sorted(MECHANISMS))
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args()
    info = {
        "cpus": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)),
        "python": sys.version.split()[0],
        "argv": sys.argv[1:],
    }
    print(info, flush=True)
    rows = run(a)
    summary, lines = summarise(rows)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps({"info": info, "summary": summary, "rows": rows}, indent=1))
    for line in lines:
        print(line)
    print(headline(summary))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
