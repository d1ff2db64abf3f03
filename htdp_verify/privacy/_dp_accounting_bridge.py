"""The bridge to Google's ``dp-accounting``: privacy-loss-distribution (PLD) and Rényi (RDP) accountants of a
list of :class:`~htdp_verify.privacy.calibration.Calibration`.

The pessimistic PLD gives an upper bound on ε(δ) and the optimistic one (privacy buckets) a lower bound (Koskela
et al.; Doroshenko et al. 2022, "Connect the dots"); the RDP accountant is an upper bound kept as a cross-check.
Used by :func:`~htdp_verify.privacy.accounting.account` when no closed form applies (subsampling, several Laplace
steps, the discrete mechanisms). ``dp_accounting`` is imported inside the functions that use it.
"""

from __future__ import annotations

import math

import numpy as np

from .calibration import Calibration


# ---------------------------------------------------------------------------------------------------------------
# dp-accounting: PLD and RDP
# ---------------------------------------------------------------------------------------------------------------
def _pld_one(c: Calibration, *, pessimistic: bool, h: float):
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld
    from dp_accounting.privacy_accountant import NeighboringRelation as NR

    dots = pessimistic  # connect-the-dots only exists in its pessimistic form
    m, q = c.mechanism, c.sampling
    kw = dict(pessimistic_estimate=pessimistic, value_discretization_interval=h, sampling_prob=q)
    if m == "gaussian":
        if q < 1 and c.neighbours == "replace":
            d = pld.from_gaussian_mechanism(
                c.sigma,
                sensitivity=c.sensitivity / 2.0,
                use_connect_dots=dots,
                neighboring_relation=NR.REPLACE_ONE,
                **kw,
            )
        else:
            d = pld.from_gaussian_mechanism(c.sigma, sensitivity=c.sensitivity, use_connect_dots=dots, **kw)
    elif m == "laplace":
        d = pld.from_laplace_mechanism(c.scale, sensitivity=c.sensitivity, use_connect_dots=dots, **kw)
    elif m == "discrete_laplace":
        d = pld.from_discrete_laplace_mechanism(
            1.0 / c.scale, sensitivity=int(c.sensitivity), use_connect_dots=dots, **kw
        )
    elif m == "discrete_gaussian":
        d = pld.from_discrete_gaussian_mechanism(c.sigma, sensitivity=int(c.sensitivity), use_connect_dots=dots, **kw)
    elif m in ("pure_dp", "approx_dp"):
        e0, d0 = c.step_epsilon, c.step_delta
        if pessimistic:
            d = pld.from_privacy_parameters(
                common.DifferentialPrivacyParameters(e0, d0), value_discretization_interval=h
            )
        else:  # the worst pair of laws for (ε0, δ0)-DP, discretised optimistically
            a, b = math.exp(e0) / (1 + math.exp(e0)), 1 / (1 + math.exp(e0))
            lo = {0: d0, 1: (1 - d0) * a, 2: (1 - d0) * b, 3: 0.0}
            up = {0: 0.0, 1: (1 - d0) * b, 2: (1 - d0) * a, 3: d0}
            logs = lambda pm: {k: math.log(v) for k, v in pm.items() if v > 0}  # noqa: E731
            d = pld.from_two_probability_mass_functions(
                logs(lo), logs(up), pessimistic_estimate=False, value_discretization_interval=h
            )
    else:
        raise ValueError(f"mechanism={m!r} has no privacy-loss distribution (use accountant='exact')")
    k = c.effective_steps
    return d.self_compose(k) if k > 1 else d


def _pld(cals, *, pessimistic: bool, h: float):
    total = None
    for c in cals:
        d = _pld_one(c, pessimistic=pessimistic, h=h)
        total = d if total is None else total.compose(d)
    return total


def _rdp_event(c: Calibration):
    from dp_accounting import dp_event as E

    m = c.mechanism
    if m == "gaussian":
        ev = E.GaussianDpEvent(c.sigma / c.sensitivity)
    elif m == "laplace":
        ev = E.LaplaceDpEvent(c.scale / c.sensitivity)
    elif m == "discrete_gaussian":  # the discrete Gaussian is Δ²/(2σ²)-zCDP (Canonne, Kamath & Steinke 2020)
        ev = E.ZCDpEvent(c.sensitivity**2 / (2 * c.sigma**2))
    elif m == "zcdp":
        ev = E.ZCDpEvent(c.rho)
    elif m == "pure_dp":  # binary randomised response with flip probability 1/(1 + e^ε0) is the worst case
        ev = E.RandomizedResponseDpEvent(2.0 / (1.0 + math.exp(c.step_epsilon)), 2)
    else:
        return None
    if c.sampling < 1:
        ev = E.PoissonSampledDpEvent(c.sampling, ev)
    k = c.effective_steps
    return E.SelfComposedDpEvent(ev, k) if k > 1 else ev


def _rdp_accountant(cals):
    from dp_accounting import rdp
    from dp_accounting.privacy_accountant import NeighboringRelation as NR

    events = [_rdp_event(c) for c in cals]
    if any(e is None for e in events):
        return None
    if any(c.sampling < 1 for c in cals):  # dp-accounting's default orders (fractional high orders are slow)
        orders = [1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512]
    else:  # closed-form RDP curves: a dense grid costs nothing and tightens the cross-check
        orders = list(np.concatenate([1 + np.geomspace(1e-3, 1.0, 60)[:-1], np.geomspace(2.0, 1e4, 400)]))
    sampled = any(c.sampling < 1 for c in cals)
    if sampled and cals[0].neighbours == "replace":
        return None  # no RDP bound for Poisson sampling under replacement in dp-accounting
    # unsampled events have the same RDP under either relation (given Δ); REPLACE_ONE also admits randomised response
    rel = NR.ADD_OR_REMOVE_ONE if sampled else NR.REPLACE_ONE
    try:
        acc = rdp.RdpAccountant(orders=orders, neighboring_relation=rel)
        for e in events:
            acc.compose(e)
    except Exception:  # unsupported event / relation combination in dp-accounting
        return None
    return acc


def _default_h(cals) -> float:
    """PLD grid: 1e-4, or 1e-3 beyond 100 composed steps or with subsampling (keeps a call near 0.1 s)."""
    steps = sum(c.effective_steps for c in cals)
    return 1e-4 if steps <= 100 and all(c.sampling == 1 for c in cals) else 1e-3
