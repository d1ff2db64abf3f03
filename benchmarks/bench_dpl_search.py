"""Speed of the diffprivlib configuration search (audits/diffprivlib/search.py): releases per second of
per-call models serially and with the adapters' worker processes, and the engine's Dask backend on a
certification large enough to span several blocks.

Run: ``python benchmarks/bench_dpl_search.py [--dask] [--wide] [--sizes]``; prints one JSON object (results also
written to ``benchmarks/results/bench_dpl_search.json``, merged into what the file holds).  ``--wide``: for d = 2 to
50 the peak memory (tracemalloc) and time of building a configuration's candidate pairs, and the CPU seconds per
release of the wide models (the box has 2**d corners, of which the pairs use the first four; listing all of them
before truncating was the MemoryError of KMeans at d = 50).  ``--sizes``: the certification sizes each profile
derives from its detectability target for every claimed ε of the table, at δ = 0 and 1e-5, and the CPU
milliseconds of one sizing call.  Numbers depend on the machine's load; the script prints the load average next to
them.

Why the Dask backend does not speed up model audits: ``audit(..., backend="dask")`` ships *blocks* of the
certification stage to the workers, and a block holds up to 65,536 small releases
(``htdp_verify.privacy.streaming.MAX_BLOCK``); a model certification of a few hundred or thousand releases is one
block, so it runs on one worker.  Per-call models are parallelised inside the adapter instead (``n_jobs``: contiguous
seed chunks in joblib worker processes, identical output).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np

warnings.simplefilter("ignore")


def _rate(adapter, data, n, seed=0):
    t = time.perf_counter()
    adapter(data, n, np.random.default_rng(seed))
    return n / (time.perf_counter() - t)


def models(n=200):
    from audits.diffprivlib.space import base_dataset, build_adapter, make_config

    cfgs = [
        make_config(
            "models.GaussianNB",
            1.0,
            dict(bounds=(0.0, 1.0), classes=2, priors=None, var_smoothing=1e-9),
            dict(n=20, d=2, shape="spread"),
        ),
        make_config(
            "models.LinearRegression",
            1.0,
            dict(bounds_X=(0.0, 1.0), bounds_y=(0.0, 1.0), fit_intercept=True),
            dict(n=20, d=2, shape="spread"),
        ),
        make_config("models.KMeans", 1.0, dict(bounds=(0.0, 1.0), n_clusters=2), dict(n=20, d=2, shape="spread")),
    ]
    out = {}
    for c in cfgs:
        data = base_dataset(c)
        row = {}
        for jobs in (1, 2):
            a = build_adapter(c, n_jobs=jobs)
            a.min_chunk = 4
            row[f"n_jobs={jobs}"] = round(_rate(a, data, n), 1)
        row["speedup"] = round(row["n_jobs=2"] / row["n_jobs=1"], 2)
        out[c.label()] = row
    return out


def wide(n=10):
    """Pairs' peak memory and time, and CPU seconds per release (process time: robust to the machine's load), for
    KMeans (2 clusters) and StandardScaler at d in (2, 10, 20, 50)."""
    import tracemalloc

    from audits.diffprivlib.space import build_adapter, config_pairs, make_config

    out = {}
    for key, args in (
        ("models.KMeans", dict(bounds=(0.0, 1.0), n_clusters=2)),
        ("models.StandardScaler", dict(bounds=(0.0, 1.0), with_mean=True, with_std=True)),
    ):
        for d in (2, 10, 20, 50):
            c = make_config(key, 1.0, args, dict(n=20, d=d, shape="spread"))
            tracemalloc.start()
            t = time.perf_counter()
            pairs = config_pairs(c)
            secs = time.perf_counter() - t
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            a = build_adapter(c)
            t = time.process_time()
            a(pairs[0].d, n, np.random.default_rng(0))
            out[c.label()] = {
                "pairs": len(pairs),
                "pairs_seconds": round(secs, 4),
                "pairs_peak_MiB": round(peak / 2**20, 3),
                "cpu_seconds_per_release": round((time.process_time() - t) / n, 4),
            }
    return out


def dask_certification(n=4 * 65_536):
    from distributed import Client, LocalCluster

    from audits.diffprivlib.space import build_adapter, make_config
    from htdp_verify.privacy import Mechanism, audit

    c = make_config("mechanisms.Laplace", 1.0, dict(sensitivity=1.0, delta=0.0), dict(shape="centre"))
    a = build_adapter(c)
    mech = Mechanism(a, name=a.name, guarantee=a.privacy, vectorised=False)
    out = {}
    t = time.perf_counter()
    r1 = audit(mech, a.privacy, pairs=(0.0, 1.0), n_samples=n, n_select=4000, rng=np.random.default_rng(1))
    out["serial_seconds"] = round(time.perf_counter() - t, 1)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl,
        Client(cl) as client,
    ):
        t = time.perf_counter()
        r2 = audit(
            mech,
            a.privacy,
            pairs=(0.0, 1.0),
            n_samples=n,
            n_select=4000,
            rng=np.random.default_rng(1),
            backend="dask",
            client=client,
        )
        out["dask_2_workers_seconds"] = round(time.perf_counter() - t, 1)
    out["same_counts"] = r1.counts == r2.counts
    out["releases_per_side"] = n
    return out


def sizes():
    """Releases per side of one certification, per profile / family / claimed ε (δ = 0 and 1e-5), from the target
    of :data:`~audits.diffprivlib.sizes.SEARCH_SIZES`, and the CPU milliseconds of each sizing call (median)."""
    from audits.diffprivlib.search import SEARCH_ALPHA
    from audits.diffprivlib.sizes import SEARCH_SIZES, certification_sizes
    from audits.diffprivlib.space import FAMILIES

    out, ms = {}, []
    for profile, fams in SEARCH_SIZES.items():
        for fam, sz in fams.items():
            a = SEARCH_ALPHA / len(FAMILIES) / (2 * sz["k"])
            row = {}
            for eps in (0.1, 0.5, 1.0, 2.0):
                for delta in (0.0, 1e-5):
                    t = time.process_time()
                    r = certification_sizes(
                        eps, delta, target=sz["target"], alpha=a, cap=sz["cap"], select=sz["select"]
                    )
                    ms.append(1e3 * (time.process_time() - t))
                    row[f"eps={eps:g},delta={delta:g}"] = f"{r['n_samples']}" + (
                        f" (cap; needs {r['needed']}; detects {r['detectable_epsilon']:.3g})"
                        if r["capped"]
                        else f" (target {r['target_epsilon']:.3g})"
                    )
            out[f"{profile}.{fam}"] = {"target": sz["target"].describe(), "cap": sz["cap"], "alpha": a, **row}
    out["sizing_cpu_ms_median"] = round(float(np.median(ms)), 2)
    out["sizing_cpu_ms_max"] = round(float(np.max(ms)), 2)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dask", action="store_true")
    ap.add_argument("--wide", action="store_true", help="only the wide-data measurements")
    ap.add_argument("--sizes", action="store_true", help="only the certification sizes derived from the targets")
    args = ap.parse_args()
    res = {"load_average": os.getloadavg()}
    if args.sizes:
        res["certification_sizes"] = sizes()
    elif args.wide:
        res["wide_models"] = wide()
    else:
        res["models_releases_per_second"] = models()
    if args.dask:
        res["dask_certification_laplace"] = dask_certification()
    print(json.dumps(res, indent=1))
    p = Path(__file__).parent / "results" / "bench_dpl_search.json"
    p.parent.mkdir(exist_ok=True)
    old = json.loads(p.read_text(encoding="utf-8")) if p.exists() else {}
    if args.wide:
        res["wide_models_load_average"] = res.pop("load_average")
    elif args.sizes:
        res["certification_sizes_load_average"] = res.pop("load_average")
    p.write_text(json.dumps({**old, **res}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
