"""Speed of the diffprivlib configuration search (audits/diffprivlib/search.py): releases per second of
per-call models serially and with the adapters' worker processes, and the engine's Dask backend on a
certification large enough to span several blocks.

Run: ``python benchmarks/bench_dpl_search.py [--dask]``; prints one JSON object (results also written to
``benchmarks/results/bench_dpl_search.json``).  Numbers depend on the machine's load; the script prints the
load average next to them.

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dask", action="store_true")
    args = ap.parse_args()
    res = {"load_average": os.getloadavg(), "models_releases_per_second": models()}
    if args.dask:
        res["dask_certification_laplace"] = dask_certification()
    print(json.dumps(res, indent=1))
    p = Path(__file__).parent / "results" / "bench_dpl_search.json"
    p.parent.mkdir(exist_ok=True)
    p.write_text(json.dumps(res, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
