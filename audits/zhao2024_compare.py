"""Zhao et al. 2024 against baselines: simple clipping and iterative updating vs a clipped mean + Gaussian noise and
non-private references at equal (ε, δ) on bivariate t data (``zhao2024.compare_baselines``; descriptive, verdict
"info": a table and a figure). Split from :mod:`audits.zhao2024`, whose sizes, constants and radius rule it uses.
"""

from __future__ import annotations

import numpy as np

from estimators.baselines import ClippedMeanGaussian, MedianOfMeans, NonPrivateMean, TrimmedMean
from estimators.zhao2024 import IterativeUpdatingMean, SimpleClippingMean
from htdp_verify.distributions import MultivariateT
from htdp_verify.registry import register

from . import _mean_common as C
from .zhao2024 import DELTA, EPS, PROV_CMP, SIZES, theorem_radius


@register(
    "zhao2024.compare_baselines",
    description="simple clipping and iterative updating vs clipped mean + "
    "Gaussian at equal (ε, δ) on bivariate t (table + figure; info)",
    provenance=PROV_CMP,
    tags=("zhao2024", "comparison"),
)
def check_compare(ctx):
    sz = SIZES[C.profile_of(ctx)]
    n = sz["n_cmp"]
    laws = {
        "mvt5 (d=2)": MultivariateT(5.0, loc=np.array([1.0, -0.5])),
        "mvt3 (d=2)": MultivariateT(3.0, loc=np.array([1.0, -0.5])),
    }
    R = theorem_radius(n, EPS, 2, 2.5, p=2.5)
    ests = {
        "zhao_simple_clipping": SimpleClippingMean.for_target(EPS, DELTA, R),
        "zhao_iterative(m=20)": IterativeUpdatingMean(R, 20, EPS, DELTA),
        "zhao_iterative(parallel)": IterativeUpdatingMean(R, 20, EPS, DELTA, calibration="parallel"),
        "box[-R,R]+gauss": ClippedMeanGaussian(EPS, DELTA, -R, R),
        "mean (non-private)": NonPrivateMean(),
        "median-of-means (non-private)": MedianOfMeans(20),
        "trimmed 10% (non-private)": TrimmedMean(0.1),
    }
    return C.comparison_check(
        ests,
        laws,
        n=n,
        reps=sz["reps_cmp"],
        rng=ctx.rng,
        name="zhao2024.compare_baselines",
        provenance=PROV_CMP,
        seed=ctx.seed,
        out_dir=ctx.out_dir,
        epsilon=EPS,
        delta=DELTA,
        focus="zhao_iterative(m=20)",
    )
