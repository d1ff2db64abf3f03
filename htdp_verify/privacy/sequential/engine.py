"""The sequential test itself, on any counting callback: the checkpoint schedule (:func:`checkpoints`,
:func:`checkpoint_alpha`), the ε grid and betting e-processes of ``method="betting"``, the futility projection,
and :func:`run_sequential`, which returns a :class:`SequentialOutcome`. The method is described in
:mod:`htdp_verify.privacy.sequential`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri

from ..._validate import check_int, check_prob
from ...stats import cp_lower, cp_upper, epsilon_lower_bound

__all__ = [
    "checkpoints",
    "checkpoint_alpha",
    "SequentialOutcome",
    "run_sequential",
    "FUTILITY_MODES",
    "METHODS",
    "epsilon_grid",
]


FUTILITY_MODES = ("plausible", "certain", None)
METHODS = ("betting", "union", "fixed")
METHOD_NOTES = {
    "union": "Clopper-Pearson at each checkpoint j of a fixed geometric schedule at alpha*6/(pi^2 j^2) (union bound "
    "over checkpoints, Darling & Robbins 1967): the bound holds at 1 - alpha at any stopping time",
    "betting": "betting e-processes for H0(eps): p_num <= e^eps p_den + delta on randomly paired releases, one per "
    "grid eps, GRAPA bets (Waudby-Smith & Ramdas 2024); eps rejected once its wealth reaches 1/alpha "
    "(Ville's inequality); the bound is the largest grid eps with all smaller grid values rejected and "
    "holds at 1 - alpha at any stopping time",
    "fixed": "one look: Clopper-Pearson at the end of the budget, at the full alpha (a fixed-n test; sequential "
    "only across the rounds of a rounds audit)",
}


def checkpoints(max_samples: int, first: int = 100, growth: float = 2.0) -> np.ndarray:
    """The fixed schedule of releases per side at which the test looks: ``first``, ×``growth`` …, ``max_samples``.

    Parameters
    ----------
    max_samples : int
        Last checkpoint.
    first : int, default 100
        First checkpoint.
    growth : float, default 2.0
        Growth factor.

    Returns
    -------
    numpy.ndarray
        Releases per side at each look.
    """
    max_samples = check_int("max_samples", max_samples, minimum=1)
    first = check_int("first", first, minimum=1)
    if not (isinstance(growth, (int, float)) and math.isfinite(growth) and growth > 1.0):
        raise ValueError(f"growth must be a finite number > 1, got {growth!r}")
    out: list[int] = []
    n = float(min(first, max_samples))
    while int(math.ceil(n)) < max_samples:
        v = int(math.ceil(n))
        if not out or v > out[-1]:
            out.append(v)
        n *= growth
    out.append(max_samples)
    return np.asarray(out, dtype=np.int64)


def checkpoint_alpha(alpha: float, j: Any) -> np.ndarray | float:
    """Level of checkpoint ``j`` (1-based): ``alpha · 6 / (π² j²)``; the levels sum to at most ``alpha``.

    Parameters
    ----------
    alpha : float
        Total level.
    j : int or array_like
        Checkpoint index (1-based).

    Returns
    -------
    float or numpy.ndarray
        The level.
    """
    j = np.asarray(j, dtype=float)
    if np.any(j < 1):
        raise ValueError("checkpoint index j must be >= 1")
    out = alpha * 6.0 / (math.pi**2 * j**2)
    return float(out) if out.ndim == 0 else out


@dataclass
class SequentialOutcome:
    """What the sequential test did: the stop reason, the releases per side used, the certified bound per event
    (running maximum over the checkpoints seen, valid at ``1 - alpha`` at the stopping time), and the history.

    Parameters
    ----------
    stop_reason : str
        ``"violated"`` (a bound exceeded the claimed ε), ``"futility"`` or ``"max_samples"`` (budget used up).
    n_per_side : int
        Releases per side drawn up to the stop.
    k_num : numpy.ndarray
        Per event, the count on the favoured side at the stop.
    k_den : numpy.ndarray
        Per event, the count on the other side at the stop.
    eps_lb : numpy.ndarray
        Per event, the certified ε lower bound (running maximum over the checkpoints seen).
    checkpoint : int
        Number of checkpoints looked at, the stopping one included.
    alpha_at_stop : float
        The level of the stopping checkpoint's Clopper–Pearson intervals (union method; the event level ``alpha``
        for the betting method).
    schedule : numpy.ndarray
        The checkpoints: cumulative releases per side, the last one ``max_samples``.
    alpha : float
        The level of each event.
    futility : str or None
        The futility rule used (``"plausible"``, ``"certain"`` or ``None``).
    history : list of dict, optional
        One entry per checkpoint seen: ``n_per_side`` and the best ``epsilon_lb`` so far.
    method : str, default "betting"
        ``"betting"`` or ``"union"``.
    """

    stop_reason: str
    n_per_side: int
    k_num: np.ndarray
    k_den: np.ndarray
    eps_lb: np.ndarray
    checkpoint: int
    alpha_at_stop: float
    schedule: np.ndarray
    alpha: float
    futility: str | None
    history: list = field(default_factory=list)
    method: str = "betting"

    def to_dict(self) -> dict:
        return {
            "stop_reason": self.stop_reason,
            "releases_per_side": int(self.n_per_side),
            "releases_used": int(2 * self.n_per_side),
            "max_samples_per_side": int(self.schedule[-1]),
            "checkpoints_used": int(self.checkpoint),
            "schedule": [int(x) for x in self.schedule],
            "alpha_per_event": self.alpha,
            "alpha_at_stop_checkpoint": self.alpha_at_stop,
            "epsilon_lb_per_event": [float(x) for x in self.eps_lb],
            "futility": self.futility,
            "history": self.history,
            "method": METHOD_NOTES[self.method],
        }


def _projected_bound(kn, kd, n, N, a_final, delta, mode, beta):
    R = N - n
    if mode == "certain":
        return epsilon_lower_bound(kn + R, N, kd, N, a_final, delta)
    z = float(ndtri(1.0 - beta))
    u = np.asarray(cp_upper(kn, n, beta), float)
    lo = np.asarray(cp_lower(kd, n, beta), float)
    fn = np.minimum(kn + np.ceil(R * u + z * np.sqrt(R * u * (1 - u))), N)
    fd = np.maximum(kd + np.floor(R * lo - z * np.sqrt(R * lo * (1 - lo))), kd)
    return epsilon_lower_bound(fn, N, fd, N, a_final, delta)


def epsilon_grid(claim: float, top: float | None = None, size: int = 64) -> np.ndarray:
    """ε values tested by the betting method: ``[0, claim]`` evenly, one point just above the claim, then
    geometrically up to ``top`` (default ``max(20, 10·claim)``).  The reported bound is a grid point.

    Parameters
    ----------
    claim : float
        The claimed ε.
    top : float, optional
        Largest ε tested.
    size : int, default 64
        Number of grid points.

    Returns
    -------
    numpy.ndarray
        The grid.
    """
    top = max(20.0, 10.0 * claim) if top is None else float(top)
    above = claim * (1 + 1e-9) + 1e-12
    return np.unique(
        np.r_[np.linspace(0.0, claim, size // 2), above, np.geomspace(max(above, 1e-3), max(top, 2 * above), size // 2)]
    )


class _Betting:
    """Betting e-processes (one per event and grid value ε) for H0(ε): p_num ≤ e^ε p_den + δ.

    Releases are paired one from each side (a uniformly random pairing, drawn with ``rng``: given the round's counts
    ``a`` and ``b`` of ``m`` pairs, the number of (1, 1) pairs is hypergeometric), ``Z = X − e^ε Y − δ`` has mean
    ``≤ 0`` under H0 and ``Z ≥ −(e^ε + δ)``, so ``K_t = Π (1 + λ_i Z_i)`` with a predictable bet
    ``0 ≤ λ_i ≤ c/(e^ε + δ)`` (``c = max_bet < 1``, default 1/2) is a non-negative supermartingale under H0
    and, by Ville's inequality, ``P(sup_t K_t ≥ 1/α) ≤ α`` (Waudby-Smith & Ramdas 2024, "Estimating means of
    bounded random variables by betting", JRSS-B 86; Shafer & Vovk).  The bet is constant within a round and set
    from the previous rounds by the GRAPA rule ``λ = μ̂ / (σ̂² + μ̂²)`` (clipped; plug-in mean and variance of Z).
    Every ε whose wealth ever reached ``1/α`` is rejected for good; the certified bound is the largest grid value
    ``g`` with every grid value ``≤ g`` rejected: if the event's true loss ε* were below it, H0(ε*) (which holds)
    would have been rejected, an event of probability ``≤ α``.
    """

    def __init__(self, n_events, grid, delta, alpha, rng, max_bet=0.5):
        self.grid, self.delta, self.thr, self.rng = grid, delta, math.log(1.0 / alpha), rng
        self.max_bet = max_bet
        self.ee = np.exp(grid)[None, :]
        self.logk = np.zeros((n_events, grid.size))
        self.rejected = np.zeros((n_events, grid.size), dtype=bool)

    def bets(self, kn, kd, n):
        if n == 0:
            return np.zeros_like(self.logk)
        pn = ((kn + 0.5) / (n + 1.0))[:, None]
        pd = ((kd + 0.5) / (n + 1.0))[:, None]
        d, ee = self.delta, self.ee
        mu = pn - ee * pd - d
        m2 = (
            pn * (1 - pd) * (1 - d) ** 2
            + (1 - pn) * pd * (ee + d) ** 2
            + pn * pd * (1 - ee - d) ** 2
            + (1 - pn) * (1 - pd) * d**2
        )
        lam = mu / np.maximum(m2, 1e-300)
        return np.clip(lam, 0.0, self.max_bet / (ee + d))

    def update(self, a, b, m, lam):
        n11 = np.array(
            [self.rng.hypergeometric(int(ai), int(m - ai), int(bi)) if m > 0 else 0 for ai, bi in zip(a, b)],
            dtype=float,
        )[:, None]
        a, b = np.asarray(a, float)[:, None], np.asarray(b, float)[:, None]
        n10, n01 = a - n11, b - n11
        n00 = m - n11 - n10 - n01
        d, ee = self.delta, self.ee
        self.logk += (
            n11 * np.log1p(lam * (1 - ee - d))
            + n10 * np.log1p(lam * (1 - d))
            + n01 * np.log1p(-lam * (ee + d))
            + n00 * np.log1p(-lam * d)
        )
        self.rejected |= self.logk >= self.thr

    def bound(self):
        prefix = np.cumprod(self.rejected, axis=1).astype(bool)
        last = prefix.sum(axis=1)  # number of leading rejected grid values
        return np.where(last > 0, self.grid[np.maximum(last - 1, 0)], 0.0)


def run_sequential(
    count: Any,
    n_events: int,
    *,
    epsilon: float,
    delta: float,
    alpha: float,
    max_samples: int,
    method: str = "betting",
    rng: np.random.Generator | None = None,
    first: int | None = None,
    growth: float | None = None,
    futility: str | None = "plausible",
    futility_level: float = 1e-3,
    prior: tuple | None = None,
    max_bet: float = 0.5,
) -> SequentialOutcome:
    """Run the anytime-valid test on a stream; ``count(m) -> (k_num_new, k_den_new)`` draws ``m`` fresh releases
    per side and returns how many fall in each of the ``n_events`` events (oriented: numerator first).

    ``method``: ``"betting"`` (default; e-processes over an ε grid, ``_Betting``; needs ``rng`` for the random
    pairing) or ``"union"`` (Clopper–Pearson at α·6/(π² j²) at checkpoint j).  ``first`` / ``growth``: the
    checkpoint schedule (defaults 50 / 1.5 for betting, where looking costs nothing, 100 / 2 for the union bound).
    ``alpha`` is the level of each event (Bonferroni over events is the caller's); see the module docstring.

    Parameters
    ----------
    count : callable
        ``count(m) -> (k_num_new, k_den_new)``.
    n_events : int
        Number of events.
    epsilon : float
        The claimed ε.
    delta : float
        The claimed δ.
    alpha : float
        Level of each event.
    max_samples : int
        Most releases per side.
    rng : numpy.random.Generator, optional
        Generator of the random pairing (betting).
    method : str, default "betting"
        ``"betting"`` or ``"union"``.
    first, growth : optional
        The checkpoint schedule.
    futility : str or None, default "plausible"
        ``"plausible"`` or ``"certain"`` (see the module docstring); ``None``: no futility stop.
    futility_level : float, default 0.001
        Level of the futility rule.
    prior : tuple, optional
        ``(k_num, k_den, n)`` pseudo-counts per event (betting only) added to the counts the bets are computed
        from, e.g. the selection releases' counts.  They must come from releases independent of the stream (drawn
        before it): then every bet is still fixed before the pairs it multiplies, and the e-process stays a
        supermartingale under H0; the prior only lets the first round bet instead of waiting.
    max_bet : float, default 0.5
        Largest bet of the betting method as a fraction of ``1 / (e^ε + δ)``, in (0, 1): any value keeps the
        e-process non-negative (so valid); larger bets grow the wealth faster on a plain leak (an event seldom
        seen on the other side) and lose more on each release that falls on the wrong side.

    Returns
    -------
    SequentialOutcome
        The stop, its reason and the bound.
    """
    n_events = check_int("n_events", n_events, minimum=1)
    alpha = check_prob("alpha", alpha)
    delta = check_prob("delta", delta, open_low=False)
    if not (math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if futility not in FUTILITY_MODES:
        raise ValueError(f"futility must be one of {FUTILITY_MODES}, got {futility!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    futility_level = check_prob("futility_level", futility_level)
    max_bet = check_prob("max_bet", max_bet)
    if method == "betting":
        if rng is None:
            raise ValueError("rng (a numpy.random.Generator) is required for method='betting' (random pairing)")
        first, growth = first or 50, growth or 1.5
    else:
        first, growth = first or 100, growth or 2.0
    sched = checkpoints(max_samples, first, growth) if method != "fixed" else np.asarray([max_samples], np.int64)
    J = len(sched)
    a_final = checkpoint_alpha(alpha, J) if method == "union" else alpha
    bet = _Betting(n_events, epsilon_grid(epsilon), delta, alpha, rng, max_bet) if method == "betting" else None
    kn = np.zeros(n_events, dtype=np.int64)
    kd = np.zeros(n_events, dtype=np.int64)
    if prior is None:
        p_kn, p_kd, p_n = np.zeros(n_events), np.zeros(n_events), 0
    else:
        p_kn = np.broadcast_to(np.asarray(prior[0], float), (n_events,))
        p_kd = np.broadcast_to(np.asarray(prior[1], float), (n_events,))
        p_n = check_int("prior n", int(prior[2]), minimum=0)
        if np.any(p_kn < 0) or np.any(p_kd < 0) or np.any(p_kn > p_n) or np.any(p_kd > p_n):
            raise ValueError(f"prior counts must lie in [0, n={p_n}], got {prior!r}")
    best = np.zeros(n_events)
    n, history, reason, aj = 0, [], "max_samples", a_final
    for j, nj in enumerate(sched, start=1):
        m = int(nj - n)
        a_num, a_den = count(m)
        a_num = np.asarray(a_num, dtype=np.int64).reshape(n_events)
        a_den = np.asarray(a_den, dtype=np.int64).reshape(n_events)
        if bet is not None:
            bet.update(a_num, a_den, m, bet.bets(kn + p_kn, kd + p_kd, n + p_n))
        kn += a_num
        kd += a_den
        n = int(nj)
        if bet is not None:
            best = np.maximum(best, bet.bound())
        else:
            aj = checkpoint_alpha(alpha, j) if method == "union" else alpha
            best = np.maximum(best, np.asarray(epsilon_lower_bound(kn, n, kd, n, aj, delta), float).reshape(n_events))
        history.append({"n_per_side": n, "epsilon_lb": float(best.max())})
        if best.max() > epsilon:
            reason = "violated"
            break
        if j < J and futility is not None:
            proj = np.asarray(
                _projected_bound(kn, kd, n, int(sched[-1]), a_final, delta, futility, futility_level), float
            )
            if proj.max() <= epsilon:
                reason = "futility"
                break
    return SequentialOutcome(reason, n, kn, kd, best, len(history), float(aj), sched, alpha, futility, history, method)
