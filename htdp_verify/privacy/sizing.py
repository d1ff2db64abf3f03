"""Releases per side that a certification needs to detect a stated leak: sample sizes from a detectability target.

An audit certifies a violation of a claim (ε, δ) when the lower confidence bound on the privacy loss of one fixed
event S exceeds ε (:mod:`.certification`, :mod:`.verdict`).  Its power depends on the event: how likely S is on the
side it favours (``p1``) and how much likelier than on the other side.  A *detectability target* states the leak the
audit must see: a true ε_t > ε, i.e. an event with ``P[M(D) ∈ S] = p1 ≥ event_floor`` and
``P[M(D') ∈ S] = p2 = (p1 − δ) e^{−ε_t}`` (``ln((p1 − δ) / p2) = ε_t``, the quantity the certification bounds at
the claim's δ), to be certified with probability at least ``power`` at level ``alpha``.
:func:`releases_needed` returns the smallest number of releases per side that does it, :func:`certification_power`
the probability itself, :func:`detectable_epsilon` the smallest ε_t a given size detects.

The test is the one the certification uses (the engine's event test, Kairouz et al. 2015 style two-sample bound on
one event; Clopper & Pearson 1934):

* ``"poisson"`` (pure ε, δ = 0): release numbers are ``N ~ Poisson(n)`` per side, the counts are independent
  Poisson variables, and given their sum ``s`` the favoured count is ``Bin(s, θ)`` with
  ``θ = p1 / (p1 + p2)``; the bound exceeds ε iff the one-sided exact binomial test of ``θ_ε = e^ε / (1 + e^ε)``
  rejects at α (:func:`~htdp_verify.stats.epsilon_lower_bound_poisson`).  The power is computed **exactly**:
  ``Σ_s Poisson(s; n (p1 + p2)) · P[Bin(s, θ) ≥ k_crit(s)]``.  It depends on ``n`` only through ``n · p1``, so a
  rarer event needs proportionally more releases.
* ``"cp"`` (any δ; the certification's method when δ > 0): two Clopper–Pearson bounds at α/2 each,
  ``ln((lo − δ) / hi) > ε`` (:func:`~htdp_verify.stats.epsilon_lower_bound`).  The power is computed exactly for
  ``m`` releases on each side, summing over the disfavoured count; the Poissonised sizes are accounted for by a
  stated conservative approximation: ``m = ⌊n − 2√n⌋``, the size ``Poisson(n)`` exceeds with probability about
  0.98 (the power grows with ``m`` up to the binomial saw-tooth).
* ``"auto"``: ``"poisson"`` when δ = 0, ``"cp"`` otherwise, as the certification chooses (it may take ``"cp"`` at
  δ = 0 too, when the selection predicts a tighter bound from it).

Everything is vectorised over the counts (the conditional powers of a window of totals are computed once and reused
by the bisection over ``n``, which starts from the normal-approximation size).  Measured CPU time per call on the
shared 2-core machine: 3-10 ms for sizes up to a few thousand releases, ~0.6-0.9 s at ~10⁶ (the window of totals
grows as √n); :func:`detectable_epsilon` ~0.2-0.8 s (one window per bisection step over the target).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from .._validate import check_positive, check_prob

__all__ = [
    "DetectabilityTarget",
    "certification_power",
    "releases_needed",
    "detectable_epsilon",
]

METHODS = ("auto", "poisson", "cp")


@dataclass(frozen=True)
class DetectabilityTarget:
    """The leak an audit must detect, relative to the claimed ε.

    The target ε_t for a claim ε is ``max(ratio · ε, ε + excess)``: with ``ratio = 2, excess = 0`` a claim of
    ε = 0.1 is sized to detect a true ε of 0.2 and a claim of 1 a true ε of 2 (the smaller claim needs more
    releases); an ``excess`` keeps the target away from the claim for small ε.

    Parameters
    ----------
    ratio : float, default 2.0
        Target over claim, ``>= 1`` (``inf``: a leak with no hit on the disfavoured side).
    event_floor : float, default 0.1
        Probability of the event on its likelier side, in (0, 1]; rarer events are not sized for.
    power : float, default 0.8
        Required probability of certifying the target leak, in (0, 1).
    excess : float, default 0.0
        Smallest additive gap ``ε_t − ε``, ``>= 0``.
    """

    ratio: float = 2.0
    event_floor: float = 0.1
    power: float = 0.8
    excess: float = 0.0

    def __post_init__(self):
        r = check_positive("ratio", self.ratio, allow_inf=True)
        if r < 1:
            raise ValueError(f"ratio must lie in [1, inf], got {self.ratio!r}")
        check_prob("event_floor", self.event_floor, open_high=False)
        check_prob("power", self.power)
        check_positive("excess", self.excess, allow_zero=True)
        if r == 1 and self.excess == 0:
            raise ValueError("ratio = 1 with excess = 0 targets the claim itself: give ratio > 1 or excess > 0")

    def epsilon_for(self, epsilon: float) -> float:
        """The true ε to detect for a claim of ``epsilon``.

        Parameters
        ----------
        epsilon : float
            The claimed ε (> 0).

        Returns
        -------
        float
            ``max(ratio · epsilon, epsilon + excess)``.
        """
        epsilon = check_positive("epsilon", epsilon)
        return max(self.ratio * epsilon, epsilon + self.excess)

    def to_dict(self) -> dict:
        """The target as a JSON-ready dict.

        Returns
        -------
        dict
            ``ratio``, ``event_floor``, ``power``, ``excess``.
        """
        return {"ratio": self.ratio, "event_floor": self.event_floor, "power": self.power, "excess": self.excess}

    def describe(self) -> str:
        """One line: what the target detects.

        Returns
        -------
        str
            The description.
        """
        gap = f", at least ε + {self.excess:g}" if self.excess else ""
        return (
            f"true ε = {self.ratio:g} × claim{gap} on an event of probability ≥ {self.event_floor:g}, "
            f"power {self.power:g}"
        )


# ---------------------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------------------
def _method(method: str, delta: float) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "auto":
        return "poisson" if delta == 0 else "cp"
    if method == "poisson" and delta > 0:
        raise ValueError(f"method='poisson' certifies pure ε only: delta must be 0, got {delta!r}")
    return method


def _check(epsilon, delta, target_epsilon, event_floor, alpha):
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta, open_low=False)
    target_epsilon = check_positive("target_epsilon", target_epsilon, allow_inf=True)
    if target_epsilon <= epsilon:
        raise ValueError(f"target_epsilon must exceed epsilon={epsilon!r}, got {target_epsilon!r}")
    event_floor = check_prob("event_floor", event_floor, open_high=False)
    if event_floor <= delta:
        raise ValueError(f"event_floor must exceed delta={delta!r} (no leak is visible below δ), got {event_floor!r}")
    alpha = check_prob("alpha", alpha)
    return epsilon, delta, target_epsilon, event_floor, alpha


# ---------------------------------------------------------------------------------------------------------
# the Poisson conditional test (pure ε)
# ---------------------------------------------------------------------------------------------------------
def _critical(s: np.ndarray, theta0: float, a: float) -> np.ndarray:
    """Smallest count ``k`` of ``Bin(s, theta0)`` with ``P[X >= k] < a`` (the exact one-sided test's critical count;
    ``s + 1`` when no count rejects)."""
    s = np.asarray(s, dtype=float)
    j = _st.binom.isf(a, s, theta0)
    j = np.where(np.isnan(j), s, j)
    j = j + (_st.binom.sf(j, s, theta0) >= a)  # strict: P[X > j] < a
    return (j + 1).astype(np.int64)


class _PoissonPower:
    """Conditional powers of the Poisson test for one (ε, ε_t, α) on a window of total counts (cached, recomputed
    when a new Poisson mean falls outside it); ``power(lam)`` is the Poisson(lam)-weighted sum over the total."""

    def __init__(self, epsilon: float, target: float, alpha: float):
        self.theta0 = 1.0 / (1.0 + math.exp(-epsilon))
        self.theta = 1.0 if math.isinf(target) else 1.0 / (1.0 + math.exp(-target))
        self.alpha = alpha
        self.lo, self.cond = 0, np.zeros(0)

    def _window(self, lo: int, hi: int) -> np.ndarray:
        if not (self.lo <= lo and hi < self.lo + self.cond.size):
            half = (hi - lo) // 2
            self.lo = max(0, lo - half)  # a wider window: the next bisection steps fall inside it
            s = np.arange(self.lo, hi + half + 1)
            k = _critical(s, self.theta0, self.alpha)
            if self.theta >= 1.0:
                self.cond = (k <= s).astype(float)
            else:
                self.cond = np.where(k <= s, _st.binom.sf(k - 1, s, self.theta), 0.0)
        return self.cond[lo - self.lo : hi - self.lo + 1]

    def power(self, lam: float) -> float:
        sd = math.sqrt(lam)
        lo, hi = max(0, int(lam - 9.0 * sd - 20)), int(lam + 9.0 * sd + 20)
        return float(np.sum(_st.poisson.pmf(np.arange(lo, hi + 1), lam) * self._window(lo, hi)))


# ---------------------------------------------------------------------------------------------------------
# two Clopper-Pearson bounds (any δ)
# ---------------------------------------------------------------------------------------------------------
def _cp_size(n: float) -> int:
    """The fixed size the CP power is evaluated at: ``⌊n − 2√n⌋`` (Poisson(n) exceeds it with probability ≈ 0.98)."""
    return max(1, int(math.floor(n - 2.0 * math.sqrt(n))))


def _cp_power_fixed(m: int, epsilon: float, delta: float, p1: float, p2: float, alpha: float) -> float:
    from ..stats import cp_upper

    if p2 > 0:
        mu, sd = m * p2, math.sqrt(m * p2 * (1 - p2))
        k2 = np.arange(max(0, int(mu - 9 * sd - 20)), min(m, int(mu + 9 * sd + 20)) + 1)
        w = _st.binom.pmf(k2, m, p2)
    else:
        k2, w = np.array([0]), np.array([1.0])
    hi = np.asarray(cp_upper(k2, np.full(k2.shape, m), alpha / 2), dtype=float)
    t = delta + math.exp(epsilon) * hi
    ok = t < 1.0
    p = np.zeros(k2.shape)
    if np.any(ok):
        tt = t[ok]
        j = _st.binom.isf(alpha / 2, m, tt)
        j = j + (_st.binom.sf(j, m, tt) >= alpha / 2)  # strict, as in :func:`_critical`
        kc = j + 1
        p[ok] = np.where(kc <= m, _st.binom.sf(kc - 1, m, p1), 0.0)
    return float(np.sum(w * p))


# ---------------------------------------------------------------------------------------------------------
# public functions
# ---------------------------------------------------------------------------------------------------------
def _power_fn(epsilon, delta, target, floor, alpha, method):
    p1 = floor
    if method == "poisson":
        pp = _PoissonPower(epsilon, target, alpha)
        q = 0.0 if math.isinf(target) else math.exp(-target)
        return lambda n: pp.power(n * p1 * (1.0 + q))
    p2 = 0.0 if math.isinf(target) else (p1 - delta) * math.exp(-target)
    return lambda n: _cp_power_fixed(_cp_size(n), epsilon, delta, p1, p2, alpha)


def certification_power(
    n: float,
    epsilon: float,
    delta: float = 0.0,
    *,
    target_epsilon: float,
    event_floor: float,
    alpha: float,
    method: str = "auto",
) -> float:
    """Probability that a certification with ``n`` releases per side certifies ``ε_lb > epsilon`` when the event's
    true privacy loss is ``target_epsilon`` and its probability on the favoured side is ``event_floor``.

    Parameters
    ----------
    n : float
        Expected releases per side (the certification draws ``Poisson(n)``), ``>= 1``.
    epsilon : float
        The claimed ε (> 0).
    delta : float, default 0.0
        The claimed δ, in [0, 1).
    target_epsilon : float
        The event's true ``ln((p1 − δ) / p2)``, above ``epsilon`` (``inf``: ``p2 = 0``).
    event_floor : float
        ``p1``, the event's probability on the favoured side, in (δ, 1].
    alpha : float
        Level of the certification (the α of the one certified event), in (0, 1).
    method : {"auto", "poisson", "cp"}, default "auto"
        The certification's test (see the module docstring).

    Returns
    -------
    float
        The power (exact for ``"poisson"``; at ``⌊n − 2√n⌋`` fixed releases per side for ``"cp"``).
    """
    epsilon, delta, target_epsilon, event_floor, alpha = _check(epsilon, delta, target_epsilon, event_floor, alpha)
    n = check_positive("n", n)
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    return _power_fn(epsilon, delta, target_epsilon, event_floor, alpha, _method(method, delta))(n)


#: sizes above this are found to a relative precision of REL_TOL (rounded up: the answer always has the power)
EXACT_BELOW = 1000
REL_TOL = 1e-3


def _smallest(ok, n_max: int, guess: float | None = None) -> int | None:
    """Smallest integer n in [1, n_max] with ``ok(n)`` (bracketing from ``guess``, then bisection; exact below
    :data:`EXACT_BELOW`, within :data:`REL_TOL` above); ``None`` if even ``n_max`` fails."""
    hi = int(min(max(8, guess or 8), n_max))
    if ok(hi):
        lo = hi // 2
        while lo >= 1 and ok(lo):
            hi, lo = lo, lo // 2
    else:
        lo = hi
        while True:
            if hi >= n_max:
                return None
            hi = min(2 * hi, n_max)
            if ok(hi):
                break
            lo = hi
    while hi - lo > max(1, (REL_TOL * hi if hi > EXACT_BELOW else 1)):
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _guess(epsilon, delta, target, floor, alpha, power) -> float | None:
    """Normal-approximation size of the log-ratio test (a starting point for the bracketing only)."""
    if math.isinf(target):
        return None
    p2 = (floor - delta) * math.exp(-target)
    z = _st.norm.isf(alpha) + _st.norm.ppf(power)
    return z * z * (1.0 / floor + 1.0 / p2) / (target - epsilon) ** 2


def releases_needed(
    epsilon,
    delta=0.0,
    *,
    target_epsilon,
    event_floor: float,
    alpha: float,
    power: float = 0.8,
    method: str = "auto",
    n_max: int = 10**9,
):
    """Smallest number of releases per side with which a certification detects the target leak with ``power``.

    Parameters
    ----------
    epsilon : float or array_like
        Claimed ε (> 0); arrays broadcast with ``delta`` and ``target_epsilon``.
    delta : float or array_like, default 0.0
        Claimed δ, in [0, 1).
    target_epsilon : float or array_like
        True ``ln((p1 − δ) / p2)`` of the event to detect, above ``epsilon`` (``inf`` allowed).
    event_floor : float
        The event's probability on the favoured side, in (δ, 1].
    alpha : float
        Level of the certification, in (0, 1).
    power : float, default 0.8
        Required probability of certifying a violation, in (0, 1).
    method : {"auto", "poisson", "cp"}, default "auto"
        The certification's test (see the module docstring).
    n_max : int, default 10**9
        Largest size searched.

    Returns
    -------
    int or numpy.ndarray
        Releases per side (expected; the certification draws Poisson(n)): the smallest with the power below 1000,
        within 0.1 % of it above (rounded up, so it always has the power); ``-1`` where even ``n_max`` falls short.
    """
    power = check_prob("power", power)
    e, d, t = np.broadcast_arrays(
        np.asarray(epsilon, float), np.asarray(delta, float), np.asarray(target_epsilon, float)
    )
    out = np.empty(e.shape, dtype=np.int64)
    for idx in np.ndindex(e.shape):
        ei, di, ti, fl, a = _check(float(e[idx]), float(d[idx]), float(t[idx]), event_floor, alpha)
        f = _power_fn(ei, di, ti, fl, a, _method(method, di))
        n = _smallest(lambda m, f=f: f(m) >= power, int(n_max), _guess(ei, di, ti, fl, a, power))
        out[idx] = -1 if n is None else n
    return int(out) if out.ndim == 0 else out


def detectable_epsilon(
    n: float,
    epsilon: float,
    delta: float = 0.0,
    *,
    event_floor: float,
    alpha: float,
    power: float = 0.8,
    method: str = "auto",
    tol: float = 1e-3,
) -> float:
    """Smallest true ε the certification detects with ``power`` at ``n`` releases per side (the inverse of
    :func:`releases_needed` in the target).

    Parameters
    ----------
    n : float
        Expected releases per side, ``>= 1``.
    epsilon : float
        Claimed ε (> 0).
    delta : float, default 0.0
        Claimed δ, in [0, 1).
    event_floor : float
        The event's probability on the favoured side, in (δ, 1].
    alpha : float
        Level of the certification, in (0, 1).
    power : float, default 0.8
        Required probability of certifying a violation, in (0, 1).
    method : {"auto", "poisson", "cp"}, default "auto"
        The certification's test.
    tol : float, default 1e-3
        Relative precision of the answer (it is rounded up).

    Returns
    -------
    float
        The smallest detectable true ε; ``inf`` when even an event with no hit on the other side is not certified
        with ``power``.
    """
    power = check_prob("power", power)
    epsilon, delta, _, event_floor, alpha = _check(epsilon, delta, math.inf, event_floor, alpha)
    n = check_positive("n", n)
    meth = _method(method, delta)

    def ok(t):
        return _power_fn(epsilon, delta, t, event_floor, alpha, meth)(n) >= power

    if not ok(math.inf):
        return math.inf
    lo, hi = epsilon, 2.0 * epsilon + 1.0
    while not ok(hi):
        lo, hi = hi, 2.0 * hi
        if hi > 1e3:
            return math.inf
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
