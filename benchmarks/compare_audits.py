"""Side-by-side comparison of audit() results across two checkouts (used when restructuring the auditor).

Run it once per tree with that tree first on sys.path and diff the two JSON files:

    python -c "import sys; sys.path.insert(0, OLD); exec(open('benchmarks/compare_audits.py').read())" old.json
    python -c "import sys; sys.path.insert(0, NEW); exec(open('benchmarks/compare_audits.py').read())" new.json
    diff old.json new.json

Bounds, pairs, events, counts and profiles are written with full precision, so any change shows.
"""

import json
import sys

import numpy as np

from htdp_verify import PrivacyClaim
from htdp_verify.privacy import Pair, audit

out = {}


def rec(name, r):
    d = r.details
    out[name] = {
        "verdict": r.verdict,
        "eps_lb": repr(float(r.estimate)),
        "pair": d["pair"]["text"],
        "event": d["event"]["event"],
        "orientation": d["event"]["orientation"],
        "counts": d["counts"],
        "n": r.n_samples,
        "mu": repr(d["gdp_mu_lb"]),
        "profile": None if d.get("profile") is None else json.dumps(d["profile"], sort_keys=True, default=str),
    }


def lap(eps):
    def m(data, size, rng):
        return np.clip(np.asarray(data, float), 0, 1).mean() + rng.laplace(0, 1 / (len(data) * eps), size)

    return m


def rr(data, size, rng):
    p = np.e / (1 + np.e)
    b = int(np.asarray(data).sum() > 0)
    flip = rng.random(size) > p
    return np.where(flip, 1 - b, b)


def gauss_vec(data, size, rng):
    x = np.asarray(data, float)
    return x[None, :] + rng.normal(0, 1.0, (size, x.size))


def svtish(data, size, rng):
    q = np.asarray(data, float)
    rho = rng.laplace(0, 2 / 0.5, (size, 1))
    nu = rng.laplace(0, 4 / 0.5, (size, q.size))
    return (q + nu >= 1 + rho).astype(int)


d, d2 = np.zeros(10), np.r_[np.zeros(9), 1.0]
rec("laplace", audit(lap(0.5), PrivacyClaim(0.5), pairs=[(d, d2)], n_samples=200_000, rng=np.random.default_rng(1)))
rec(
    "laplace_under",
    audit(lap(1.0), PrivacyClaim(0.5), pairs=[(d, d2)], n_samples=100_000, rng=np.random.default_rng(2)),
)
rec(
    "laplace_profile",
    audit(
        lap(0.5),
        PrivacyClaim(0.5),
        pairs=[(d, d2)],
        n_samples=100_000,
        profile=True,
        n_certify=2,
        rng=np.random.default_rng(3),
    ),
)
rec(
    "rr",
    audit(
        rr, PrivacyClaim(1.0), pairs=[(np.zeros(3), np.r_[0, 0, 1.0])], n_samples=100_000, rng=np.random.default_rng(4)
    ),
)
rec(
    "gauss_vec_delta",
    audit(
        gauss_vec,
        PrivacyClaim(1.0, 1e-5),
        pairs=[(np.zeros(5), np.r_[1.0, 0, 0, 0, 0])],
        n_samples=50_000,
        rng=np.random.default_rng(5),
    ),
)
rec(
    "svt_pairs",
    audit(
        svtish,
        PrivacyClaim(0.5),
        pairs=[
            Pair(np.ones(5), np.zeros(5), "all below", "Ninf"),
            Pair(np.ones(5), np.r_[2, 0, 0, 0, 0.0], "one above rest below", "Ninf"),
            Pair(np.zeros(5), np.r_[1, 1, 0, 0, 0.0], "two above", "Ninf"),
        ],
        n_samples=100_000,
        rng=np.random.default_rng(6),
    ),
)
rec(
    "lap_neighbours",
    audit(
        lap(0.5), PrivacyClaim(0.5), neighbours=np.linspace(0, 1, 10), n_samples=50_000, rng=np.random.default_rng(7)
    ),
)
json.dump(out, open(sys.argv[1], "w"), indent=1, sort_keys=True)
print("wrote", sys.argv[1], len(out))
