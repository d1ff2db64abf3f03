"""Throughput of ``htdp-verify run --workers N`` and of the Dask audit backend.  Run:
``python benchmarks/bench_run_workers.py [--parts real,synthetic,audit,cache] [--repeats R] [--names ...]``.

Parts
0. ``profile``: the whole quick profile (or ``--profile-names``) with ``--workers 1`` and ``2`` as subprocesses
   (``--parts profile``): wall seconds, identical results, and from each run's timing records (``results.jsonl``):
   checks' wall and CPU seconds, occupancy, busy fraction, the lone tail, the time outside checks (start-up,
   report, workers' exit) and a load-free longest-first makespan from CPU seconds (:func:`timeline`).
   ``--analyse DIR ...`` prints :func:`timeline` of finished runs.
1. ``real``: ``htdp-verify run NAMES --profile quick`` (a CPU-bound subset of the registered checks, default
   ``hu2022.privacy`` and ``stats``) as a subprocess with ``--workers 1`` and ``--workers 2``: wall-clock seconds,
   the ratio, and whether the two runs' results are identical (every field but ``seconds``).
2. ``synthetic``: eight registered checks that each do a fixed amount of pure-Python arithmetic (single-threaded,
   no I/O, no BLAS), run in this process through ``cli.main`` with ``--workers 1`` and ``2``, ``--repeats`` times
   alternating, so the ratio is measured without the real checks' unequal lengths; median ratio reported.
3. ``audit``: ``htdp_verify.privacy.audit(..., backend="dask", client=...)`` on a Dask ``LocalCluster`` of two
   single-threaded workers (``montecarlo.backends.local_cluster``: worker profiler off; see also
   ``bench_dask_release.py``) vs ``backend="serial"``, on two expensive mechanisms: a numpy-heavy one (each release is
   the median of 100 noisy values) and a sleep-bound one (20 µs per release; the clean case of a slow estimator),
   8 blocks of 65 536 releases per side.  The certification stage is timed alone (``count_streamed``, one side)
   and inside the whole audit, with the default ``max_memory`` (the Dask backend splits the blocks into at least
   two calls per worker thread) and the default ``n_select`` (a quarter of ``n_samples``, 130 322 per side): the
   selection holds ``FIT_CAP`` = 65 536 releases per side, drawn in this process, and counts the rest on a block
   stream, on the workers with Dask (one block per side here).  So the held part, two of the audit's 20 blocks of
   mechanism calls, stays serial: the whole audit's ratio is at most 20 / 11 = 1.82 on an idle machine.  Each
   row has the wall seconds, the CPU seconds of this process and of the workers (``client.run`` of
   ``time.process_time`` before and after), the stage seconds of the audit and the load.  A third mechanism,
   ``sleep_2us`` (``--mechanisms sleep_2us``; 2 µs per release, 4·10⁶ releases per side), shows the scale at which
   the streamed selection matters: per side it draws one block's worth held, 15 streamed selection blocks and 61
   certification blocks.  ``--n-select 2000`` gives the earlier setting (selection held whole, nothing streamed).

4. ``cache``: the checks that share an in-process cache (default the six Hu et al. rate claims on the ``dpfw`` and
   ``lasso`` shared sweeps, ``--cache-names``) at ``--profile quick`` with ``--workers 2``, through ``cli.main`` in
   this process, once with their cache groups (each group one unit in one worker) and once with the groups
   ignored (every check its own unit, as before the groups): wall seconds, the checks' summed CPU seconds from the
   run log's timing records, and whether the two runs' results are identical.

The machine is shared: the 1-minute load average is sampled every 2 s during each measurement and printed with
it, and before each part the *capacity* is measured: 2 x (time of a fixed CPU-bound task alone) / (time of two
such tasks on two processes at once), 2.0 on an idle 2-core machine, ~1.0 when other work leaves one core.  A
CPU-bound ratio can only be judged against the capacity measured next to it.  On a Linux machine with
``/proc/sys/kernel/sched_autogroup_enabled`` = 1 the CPU is shared between *sessions*: while other sessions keep both
cores busy, a session gets the same share whatever its number of processes, so two workers cannot beat one (the
sleep-bound mechanism, which needs no CPU, still shows what the parallel machinery itself costs).
Writes ``benchmarks/results/bench_run_workers.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from htdp_verify import cli  # noqa: E402
from htdp_verify.registry import register  # noqa: E402
from htdp_verify.results import CheckResult  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "bench_run_workers.json"


class LoadSampler:
    """Samples ``os.getloadavg()`` every 2 s while active; ``summary()``: mean and max of the 1-minute load."""

    def __init__(self):
        self.samples, self._stop = [], threading.Event()

    def __enter__(self):
        self.samples.append(os.getloadavg())
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self):
        while not self._stop.wait(2.0):
            self.samples.append(os.getloadavg())

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.samples.append(os.getloadavg())

    def summary(self):
        one = [s[0] for s in self.samples]
        return {
            "load1_mean": round(statistics.mean(one), 2),
            "load1_max": round(max(one), 2),
            "load15_end": round(self.samples[-1][2], 2),
        }


def _drop_seconds(x):
    """``x`` without wall-clock fields: every key named ``seconds`` (a result's, and the audits' stage timings)."""
    if isinstance(x, dict):
        return {k: _drop_seconds(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [_drop_seconds(v) for v in x]
    return x


def _results(out: Path):
    return _drop_seconds(json.loads((out / "results.json").read_text())["results"])


#: what differs between any two runs with one seed, serial or not: wall-clock throughput and the sweep time quoted in
#: a summary, and reproduction-script names made with Python's per-process string hash
WALL_KEYS = ("seconds", "releases_per_second")
WALL_TEXT = ((re.compile(r"sweep [0-9.]+ s"), "sweep <t> s"), (re.compile(r"_[0-9]+\.py\b"), "_<hash>.py"))


def _normalised(x):
    """``x`` without :data:`WALL_KEYS` and with the :data:`WALL_TEXT` patterns masked in strings."""
    if isinstance(x, dict):
        return {k: _normalised(v) for k, v in x.items() if k not in WALL_KEYS}
    if isinstance(x, list):
        return [_normalised(v) for v in x]
    if isinstance(x, str):
        for pat, rep in WALL_TEXT:
            x = pat.sub(rep, x)
    return x


# ------------------------------------------------------------------------------------------------- capacity
def _spin(_=None):
    x = 0.0
    for _ in range(8_000_000):
        x = x * 0.999999 + 1.0
    return x


def capacity():
    """How many cores this process can have now: 2 x (one task alone) / (two tasks on two processes).  2.0 on an
    idle 2-core machine; about 1.0 when other work leaves room for one CPU-bound process only."""
    import multiprocessing as mp

    t = time.perf_counter()
    _spin()
    t1 = time.perf_counter() - t
    with mp.get_context("spawn").Pool(2) as pool:
        pool.map(_spin, [0, 0])  # start-up outside the timing
        t = time.perf_counter()
        pool.map(_spin, [0, 1], chunksize=1)
        t2 = time.perf_counter() - t
    row = {
        "part": "capacity",
        "one_alone_s": round(t1, 2),
        "two_parallel_s": round(t2, 2),
        "capacity": round(2 * t1 / t2, 2),
        "load1": round(os.getloadavg()[0], 2),
    }
    print(row, flush=True)
    return row


# ------------------------------------------------------------------------------------------------- part 1
def real_subset(names, seed, repeats):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(repeats):
            rows.append({**capacity(), "before": "real", "repeat": rep})
            for w in (1, 2) if rep % 2 == 0 else (2, 1):
                out = Path(tmp) / f"w{w}_{rep}"
                cmd = [
                    sys.executable,
                    "-m",
                    "htdp_verify.cli",
                    "run",
                    *names,
                    "--profile",
                    "quick",
                    "--seed",
                    str(seed),
                    "--out",
                    str(out),
                    "--no-progress",
                    "--workers",
                    str(w),
                ]
                with LoadSampler() as ls:
                    t0 = time.perf_counter()
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    sec = time.perf_counter() - t0
                row = {
                    "part": "real",
                    "workers": w,
                    "repeat": rep,
                    "seconds": round(sec, 1),
                    "exit": r.returncode,
                    **ls.summary(),
                }
                rows.append(row)
                print(row, flush=True)
        for rep in range(repeats):
            a, b = _results(Path(tmp) / f"w1_{rep}"), _results(Path(tmp) / f"w2_{rep}")
            row = {
                "part": "real",
                "identical_results": a == b,
                "repeat": rep,
                "results": len(a),
                "differing": sorted({x["name"] for x in a if x not in b}),
            }
            rows.append(row)
            print(row, flush=True)
    return rows


# ------------------------------------------------------------------------------------------------- part profile
def timeline(out: Path, wall: float | None = None, workers: int | None = None) -> dict:
    """Where the time of a run in ``out`` went, from the timing records of ``out/results.jsonl``.

    ``span``: first check start to last check end; ``check_wall`` / ``check_cpu``: sums over checks of the wall time
    and of the CPU time (the process running the check and its child processes); ``occupancy``: check wall /
    (workers x span), the share of the workers' time with a check in flight (gaps between checks and a lone last
    check lower it; load does not); ``busy_fraction``: check CPU / (workers x run wall), the share of the cores the
    workers kept busy (lowered by load from other programs as well); ``end_wait``: run wall minus the time from the
    run's start to the last check's end (start-up before the first check plus the exit after the last: the
    report, and the workers' exit); ``lpt_cpu_makespan``: the wall time of the checks on ``workers`` idle cores if
    each took its CPU seconds and they were submitted longest first (a load-free estimate)."""
    from htdp_verify.runlog import read_timings

    t = read_timings(out)
    meta = json.loads((out / "results.json").read_text())["meta"]
    workers = workers or meta.get("workers") or 1
    t0 = min(x["started"] for x in t.values())
    t1 = max(x["finished"] for x in t.values())
    span = t1 - t0
    cw = sum(x["finished"] - x["started"] for x in t.values())
    cpu = {k: x["cpu_seconds"] + x.get("children_cpu_seconds", 0.0) for k, x in t.items()}
    free = [0.0] * workers
    for c in sorted(cpu.values(), reverse=True):
        free[free.index(min(free))] += c
    by_worker = {}
    for x in t.values():
        by_worker.setdefault(x["worker"], []).append(x)
    last_alone = 0.0  # time at the end with fewer checks in flight than workers
    ends = sorted(max(y["finished"] for y in v) for v in by_worker.values())
    if workers > 1 and len(ends) >= 2:
        last_alone = ends[-1] - ends[-2]
    wall = wall if wall is not None else meta.get("seconds")
    row = {
        "checks": len(t),
        "workers": workers,
        "processes_seen": len(by_worker),
        "run_wall_s": round(wall, 1) if wall else None,
        "span_s": round(span, 1),
        "check_wall_s": round(cw, 1),
        "check_cpu_s": round(sum(cpu.values()), 1),
        "occupancy": round(cw / (workers * span), 3),
        "busy_fraction": round(sum(cpu.values()) / (workers * wall), 3) if wall else None,
        "tail_one_worker_s": round(last_alone, 1),
        "outside_checks_s": round(wall - span, 1) if wall else None,
        "lpt_cpu_makespan_s": round(max(free), 1),
    }
    return row


def analyse_runs(outs: list[Path]) -> list[dict]:
    """:func:`timeline` of finished runs (wall: the run's ``meta.seconds``) and whether each run's results equal
    the first's (every field but the wall-clock ``seconds``)."""
    rows = []
    for out in outs:
        meta = json.loads((out / "results.json").read_text())["meta"]
        row = {"part": "profile", "run": str(out), "profile": meta.get("profile"), "names": meta.get("names")}
        row |= {"backend": meta.get("backend"), "seconds": meta.get("seconds"), **timeline(out)}
        rows.append(row)
        print(row, flush=True)
    for out in outs[1:]:
        a, b = _results(outs[0]), _results(out)
        row = {"part": "profile", "identical_results": a == b, "runs": [str(outs[0]), str(out)], "results": len(a)}
        row["differing"] = sorted({x["name"] for x in a if x not in b})
        na, nb = _normalised(a), _normalised(b)
        row["identical_but_wall_clock_and_hash_names"] = na == nb
        row["differing_beyond_those"] = sorted({x["name"] for x in na if x not in nb})
        rows.append(row)
        print(row, flush=True)
    return rows


def profile_runs(profile, seed, workers_list, names, keep):
    """``htdp-verify run NAMES --profile PROFILE`` once per entry of ``workers_list`` (a subprocess each), with
    :func:`timeline` of each and whether the results equal the first run's."""
    rows, outs = [], {}
    tmp = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="bench-workers-"))
    for w in workers_list:
        out = tmp / f"{profile}_w{w}"
        cmd = [sys.executable, "-m", "htdp_verify.cli", "run", *names, "--profile", profile, "--seed", str(seed)]
        cmd += ["--out", str(out), "--no-progress", "--workers", str(w)]
        with LoadSampler() as ls:
            t0 = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True)
            sec = time.perf_counter() - t0
        row = {"part": "profile", "profile": profile, "names": names, "workers": w, "exit": r.returncode}
        row |= {"seconds": round(sec, 1), **ls.summary(), **timeline(out, wall=sec, workers=w)}
        outs[w] = out
        rows.append(row)
        print(row, flush=True)
    first = workers_list[0]
    for w in workers_list[1:]:
        a, b = _results(outs[first]), _results(outs[w])
        row = {"part": "profile", "profile": profile, "identical_results": a == b, "workers": [first, w]}
        row |= {"results": len(a), "differing": sorted({x["name"] for x in a if x not in b})}
        rows.append(row)
        print(row, flush=True)
    return rows


# ------------------------------------------------------------------------------------------------- part 2
WORK = 15_000_000  # pure-Python multiply-adds per synthetic check (about 3 s on one idle core)


def make_burn(name):
    def burn(ctx):
        """A fixed amount of single-threaded arithmetic; the result depends on the check's generator."""
        a, x = float(ctx.rng.random()), 0.0
        for _ in range(WORK):
            x = x * 0.999999 + a
        return CheckResult(name=name, verdict="info", statistic="x", estimate=x, seed=ctx.seed)

    return burn


def synthetic(repeats, n_checks=8):
    for k in range(n_checks):
        register(f"synthetic.burn{k}", description="fixed pure-Python arithmetic")(make_burn(f"synthetic.burn{k}"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(repeats):
            rows.append({**capacity(), "before": "synthetic", "repeat": rep})
            for w in (1, 2) if rep % 2 == 0 else (2, 1):
                out = Path(tmp) / f"s{w}_{rep}"
                with LoadSampler() as ls:
                    t0 = time.perf_counter()
                    with contextlib.redirect_stdout(io.StringIO()):
                        code = cli.main(
                            ["run", "synthetic", "--seed", "3", "--out", str(out), "--no-progress", "--workers", str(w)]
                        )
                    sec = time.perf_counter() - t0
                row = {
                    "part": "synthetic",
                    "workers": w,
                    "repeat": rep,
                    "seconds": round(sec, 2),
                    "exit": code,
                    **ls.summary(),
                }
                rows.append(row)
                print(row, flush=True)
            rows.append(
                {
                    "part": "synthetic",
                    "repeat": rep,
                    "identical_results": _results(Path(tmp) / f"s1_{rep}") == _results(Path(tmp) / f"s2_{rep}"),
                }
            )
            print(rows[-1], flush=True)
    return rows


# ------------------------------------------------------------------------------------------------- part 4
CACHE_NAMES = [
    f"hu2022.rate.{n}"
    for n in ("dpfw_neps", "abstract_pods_dpfw", "abstract_arxiv_dpfw", "lasso_neps", "abstract_pods_lasso")
] + ["hu2022.rate.abstract_arxiv_lasso"]


def cache_groups(names, seed):
    """The checks of ``names`` with --workers 2, with and without their cache groups (see the module)."""
    from htdp_verify import parallel

    rows = [{**capacity(), "before": "cache"}]
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for grouped in (True, False):
            out = Path(tmp) / ("grouped" if grouped else "ungrouped")
            saved = parallel.check_units
            if not grouped:
                parallel.check_units = lambda checks: [(c,) for c in checks]
            try:
                argv = ["run", *names, "--profile", "quick", "--seed", str(seed), "--out", str(out), "--no-progress"]
                with LoadSampler() as ls:
                    t0 = time.perf_counter()
                    with contextlib.redirect_stdout(io.StringIO()):
                        code = cli.main([*argv, "--workers", "2"])
                    sec = time.perf_counter() - t0
            finally:
                parallel.check_units = saved
            lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()[1:]]
            cpu = sum(x["timing"]["cpu_seconds"] + x["timing"]["children_cpu_seconds"] for x in lines)
            runs[grouped] = _normalised(_results(out))
            row = {
                "part": "cache",
                "grouped": grouped,
                "exit": code,
                "seconds": round(sec, 1),
                "checks_cpu_s": round(cpu, 1),
                "workers_used": len({x["timing"]["worker"] for x in lines}),
                **ls.summary(),
            }
            rows.append(row)
            print(row, flush=True)
    rows.append({"part": "cache", "identical_results": runs[True] == runs[False], "results": len(runs[True])})
    print(rows[-1], flush=True)
    return rows


# ------------------------------------------------------------------------------------------------- part 3
def median_mech(data, size, rng):
    """Numpy-heavy: each release is the median of 100 noisy copies of the data mean (one sort per release)."""
    m = float(np.mean(data))
    return np.median(m + rng.laplace(0.0, 1.0, size=(size, 100)), axis=1)


def sleepy_mech(data, size, rng):
    """Sleep-bound: 20 µs per release, as a slow estimator would take, then a Laplace mean."""
    time.sleep(2e-5 * size)
    return float(np.mean(data)) + rng.laplace(0.0, 1.0 / (len(data) * 1.0), size=size)


def fast_sleepy_mech(data, size, rng):
    """Sleep-bound at scale: 2 µs per release (an audit of 4·10⁶ releases per side in ~20 s), then a Laplace mean."""
    time.sleep(2e-6 * size)
    return float(np.mean(data)) + rng.laplace(0.0, 1.0 / (len(data) * 1.0), size=size)


#: ``sleep_2us``: 61 blocks per side, so the default selection (a quarter) streams 15 blocks per side past its fit part
N_LARGE = 61 * 65536 - 3000

#: scalar releases are counted in blocks of 65 536 (``streaming.block_size(8)``): 8 blocks per side, so two workers
#: get four each; n_samples a few Poisson standard deviations under 8 blocks (the audit draws Poisson(n) per side)
N_CERT = 8 * 65536 - 3000


def audit_backend(repeats, n_select=None, mechanisms=("median_of_100", "sleep_20us")):
    from distributed import Client

    from htdp_verify.claims import PrivacyClaim
    from htdp_verify.montecarlo.backends import local_cluster
    from htdp_verify.privacy import audit
    from htdp_verify.privacy.streaming import count_streamed

    d, d2 = np.zeros(10), np.r_[np.zeros(9), 1.0]
    rows = []
    cluster = local_cluster(2)
    client = Client(cluster)
    # warm-up outside the timings: the workers import the engine when they unpickle their first selection and
    # certification tasks (seconds on a loaded machine, which fell on the first Dask repeat)
    audit(
        median_mech,
        PrivacyClaim(1.0),
        pairs=[(d, d2)],
        n_samples=12_000,
        n_select=3000,  # more than max_memory holds: the selection streams
        rng=np.random.default_rng(0),
        max_memory=2**16,
        backend="dask",
        client=client,
    )
    try:
        for label, mech, n in (
            ("median_of_100", median_mech, N_CERT),
            ("sleep_20us", sleepy_mech, N_CERT),
            ("sleep_2us", fast_sleepy_mech, N_LARGE),
        ):
            if label not in mechanisms:
                continue
            rows.append({**capacity(), "before": label, "n_select_arg": n_select})
            kw = {}
            sel = {} if n_select is None else {"n_select": n_select}
            for rep in range(repeats):
                for backend in ("serial", "dask") if rep % 2 == 0 else ("dask", "serial"):
                    extra = {"backend": backend, "client": client if backend == "dask" else None}
                    with LoadSampler() as ls:
                        cpu = _cpu(client)
                        t0 = time.perf_counter()
                        res = audit(
                            mech,
                            PrivacyClaim(1.0),
                            pairs=[(d, d2)],
                            n_samples=n,
                            rng=np.random.default_rng(5),
                            **kw,
                            **sel,
                            **extra,
                        )
                        sec = time.perf_counter() - t0
                        cpu = _cpu(client, cpu)
                    row = {
                        "part": "audit",
                        "mechanism": label,
                        "n_select_arg": n_select,
                        "backend": backend,
                        "repeat": rep,
                        "n_samples": n,
                        "n_select_per_side": res.details["samples"]["n_select_per_side"],
                        "n_select_held_per_side": res.details["samples"]["n_select_held_per_side"],
                        "seconds": round(sec, 2),
                        **cpu,
                        "stage_seconds": {k: round(v, 2) for k, v in res.details["seconds"].items()},
                        "epsilon_lb": res.epsilon_lb,
                        "verdict": res.verdict,
                        **ls.summary(),
                    }
                    rows.append(row)
                    print(row, flush=True)
            # the certification stage alone
            for rep in range(repeats):
                for backend in ("serial", "dask") if rep % 2 == 0 else ("dask", "serial"):
                    with LoadSampler() as ls:
                        cpu = _cpu(client)
                        t0 = time.perf_counter()
                        c = count_streamed(
                            mech,
                            d,
                            n,
                            [_Above(0.05)],
                            np.random.default_rng(9),
                            release_nbytes=8,
                            backend=backend,
                            client=client if backend == "dask" else None,
                            **kw,
                        )
                        sec = time.perf_counter() - t0
                        cpu = _cpu(client, cpu)
                    row = {
                        "part": "certification",
                        "mechanism": label,
                        "n_select_arg": n_select,
                        "backend": backend,
                        "repeat": rep,
                        "n": n,
                        "seconds": round(sec, 2),
                        **cpu,
                        "count": int(c[0]),
                        **ls.summary(),
                    }
                    rows.append(row)
                    print(row, flush=True)
    finally:
        client.close()
        cluster.close()
    return rows


def _cpu(client, before=None):
    """CPU seconds of this process and of the cluster's workers so far; with ``before``: the difference."""
    now = {
        "cpu_main_s": time.process_time(),
        "cpu_workers_s": sum(client.run(time.process_time).values()),
    }
    if before is None:
        return now
    return {k: round(now[k] - before[k], 2) for k in now}


class _Above:
    """A threshold event (release > t) for ``count_streamed``."""

    def __init__(self, t):
        self.t = t

    def indicator(self, y):
        return np.asarray(y).reshape(len(y), -1)[:, 0] > self.t


def ratios(rows):
    """Median serial/parallel time ratio per part (and mechanism)."""
    out = {}
    for part in ("real", "synthetic", "profile"):
        one = [r["seconds"] for r in rows if r.get("part") == part and r.get("workers") == 1]
        two = [r["seconds"] for r in rows if r.get("part") == part and r.get("workers") == 2]
        if one and two:
            out[part] = round(statistics.median(one) / statistics.median(two), 2)
    for part in ("audit", "certification"):
        for mech, ns in {(r["mechanism"], r.get("n_select_arg")) for r in rows if r.get("part") == part}:
            same = [r for r in rows if r.get("part") == part and r["mechanism"] == mech and r.get("n_select_arg") == ns]
            s = [r["seconds"] for r in same if r["backend"] == "serial"]
            d = [r["seconds"] for r in same if r["backend"] == "dask"]
            if part == "certification" and ns is not None:
                continue  # the certification alone does not depend on n_select
            key = f"{part}:{mech}" + (f"@n_select={ns}" if ns is not None else "")
            out[key] = round(statistics.median(s) / statistics.median(d), 2)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="synthetic,audit,real")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--names", nargs="*", default=["hu2022.privacy", "stats"])
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--n-select", type=int, default=None, help="part 'audit': n_select (default: the audit's)")
    ap.add_argument("--mechanisms", default="median_of_100,sleep_20us", help="part 'audit': which mechanisms")
    ap.add_argument("--cache-names", nargs="*", default=CACHE_NAMES, help="part 'cache': the checks run")
    ap.add_argument("--profile-workers", default="1,2", help="part 'profile': the --workers values, in order")
    ap.add_argument("--profile-names", nargs="*", default=[], help="part 'profile': check names (default: all)")
    ap.add_argument("--keep", default=None, help="part 'profile': folder for the runs' output (default: a temp one)")
    ap.add_argument(
        "--analyse",
        nargs="*",
        default=None,
        help="record timeline() of these finished run folders (part 'profile') instead of running",
    )
    ap.add_argument("--note", default=None, help="with --analyse: a remark stored in each row (e.g. the load)")
    a = ap.parse_args()
    analyse = a.analyse is not None  # runs made elsewhere (e.g. at once, each in its own session)
    parts = ["profile"] if analyse else a.parts.split(",")
    rows = (
        [r | {"note": a.note} if a.note else r for r in analyse_runs([Path(d) for d in a.analyse])] if analyse else []
    )
    info = {"cpus": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)), "python": sys.version.split()[0]}
    print(info, flush=True)
    if "synthetic" in parts:
        rows += synthetic(a.repeats)
    if "audit" in parts:
        rows += audit_backend(a.repeats, a.n_select, a.mechanisms.split(","))
    if "real" in parts:
        rows += real_subset(a.names, a.seed, a.repeats)
    if "cache" in parts:
        rows += cache_groups(a.cache_names, a.seed)
    if "profile" in parts and not analyse:
        rows.append({**capacity(), "before": "profile"})
        ws = [int(x) for x in a.profile_workers.split(",")]
        rows += profile_runs("quick", a.seed, ws, a.profile_names, a.keep)
    print("serial / parallel time ratio (median over repeats):", ratios(rows), flush=True)
    # keep the rows of parts not run this time (each part can be rerun alone)
    ran = {r["part"] for r in rows} - {"capacity", "audit", "certification"}
    mechs = a.mechanisms.split(",")

    def replaced(r):
        """Whether an old row is measured again now (audit rows: the same mechanism and n_select)."""
        if r.get("part") in ("audit", "certification") or r.get("before") in (
            "median_of_100",
            "sleep_20us",
            "sleep_2us",
        ):
            mech = r.get("mechanism", r.get("before"))
            return "audit" in parts and mech in mechs and r.get("n_select_arg") == a.n_select
        return r.get("part") in ran or r.get("before") in parts

    old = json.loads(OUT.read_text())["rows"] if OUT.exists() else []
    rows = [r for r in old if not replaced(r)] + rows
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"info": info, "names": a.names, "ratios": ratios(rows), "rows": rows}, indent=1))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
