"""Information floors of event-counting audits: the fewest releases per side with which ANY audit that certifies one
fixed event can refute a claim, computed from the exact law of the mechanism (no sampling).

An audit that certifies a violation of (ε, δ)-DP on an event S sees, per release and side, only whether the
release fell in S: two Bernoulli streams with probabilities ``p_num`` (the side S favours) and ``p_den``.  For a
family of candidate events whose exact probabilities are known (e.g. the half-lines ``output ≥ t`` of a Gaussian
shift, optimal by the Neyman–Pearson lemma), an *oracle* that knows the best event and spends nothing on search
or selection needs at least:

* **fixed-n** (:func:`event_floor` ``["fixed_n"]``): the releases per side with which the certification's own
  test, two Clopper–Pearson bounds at α/2 each (:func:`~htdp_verify.privacy.sizing.releases_needed`, exact power,
  the certification's Poissonised size), certifies ``ε_lb > ε`` with the stated power;
* **sequential** (:func:`event_floor` ``["sequential"]``): a lower bound on the *expected* releases per side of any
  test valid at level α under every law of the null ``p_num ≤ e^ε p_den + δ`` (sequential or not, any stopping
  rule) that rejects with probability ``≥ power`` at the true law: ``E[N] ≥ d(power, α) / KL*``, with
  ``d(x, y) = x ln(x/y) + (1−x) ln((1−x)/(1−y))`` and ``KL* = inf_null KL(Bern(p_num) ⊗ Bern(p_den) ‖ Bern(q_num)
  ⊗ Bern(q_den))`` per pair of releases (Wald 1945, "Sequential tests of statistical hypotheses", Ann. Math.
  Statist. 16; in this form by the data-processing inequality applied at the stopping time: Kaufmann, Cappé &
  Garivier 2016, "On the complexity of best-arm identification in multi-armed bandit models", JMLR 17, Lemma 1).

:func:`oracle_floor` takes the minimum of each over the candidate events.  Both floors are for tests whose evidence
is the indicator of one event; a test on the raw releases, or one combining several events, is not bounded by them.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import rel_entr

from ..._validate import check_positive, check_prob
from ..sizing import releases_needed

__all__ = ["bernoulli_kl_to_null", "sequential_floor", "event_floor", "oracle_floor"]


#: relative tolerance below which an event counts as satisfying the claim (rounding of exactly tight laws)
_REL = 1e-9


def _bkl(p: float, q: float) -> float:
    return float(rel_entr(p, q) + rel_entr(1.0 - p, 1.0 - q))


def _check_event(p_num, p_den, epsilon, delta):
    p_num = check_prob("p_num", p_num, open_low=False, open_high=False)
    p_den = check_prob("p_den", p_den, open_low=False, open_high=False)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_prob("delta", delta, open_low=False)
    return p_num, p_den, epsilon, delta


def bernoulli_kl_to_null(p_num: float, p_den: float, *, epsilon: float, delta: float = 0.0) -> float:
    """``KL*``: the smallest Kullback–Leibler divergence (nats, per pair of releases) from the event's law
    ``Bern(p_num) ⊗ Bern(p_den)`` to a law of the null ``q_num ≤ e^ε q_den + δ``.

    Parameters
    ----------
    p_num : float
        The event's probability on the side it favours, in [0, 1].
    p_den : float
        Its probability on the other side, in [0, 1].
    epsilon : float
        The claimed ε (> 0).
    delta : float, default 0.0
        The claimed δ, in [0, 1).

    Returns
    -------
    float
        ``KL*`` (0 when the event satisfies the claim; the infimum lies on the boundary ``q_num = e^ε q_den + δ``
        otherwise, by convexity).
    """
    p_num, p_den, epsilon, delta = _check_event(p_num, p_den, epsilon, delta)
    ee = math.exp(epsilon)
    if p_num <= (ee * p_den + delta) * (1.0 + _REL):
        return 0.0
    # the closest null law moves q_den up from p_den and q_num down from p_num onto the boundary
    lo, hi = p_den, (p_num - delta) / ee

    def f(q: float) -> float:
        return _bkl(p_num, ee * q + delta) + _bkl(p_den, q)

    # convex in q_den: bounded Brent, plus the end points (the minimum may sit on one of them)
    r = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-15 + 1e-12 * hi})
    return float(min(r.fun, f(lo), f(hi)))


def sequential_floor(kl: float, *, alpha: float, power: float) -> float:
    """Wald's lower bound ``d(power, α) / KL*`` on the expected releases per side of any level-α test with the
    given power.

    Parameters
    ----------
    kl : float
        ``KL*`` per pair of releases (:func:`bernoulli_kl_to_null`), ``>= 0``.
    alpha : float
        Level, in (0, 1).
    power : float
        Power, in (α, 1).

    Returns
    -------
    float
        The bound (``inf`` when ``kl`` is 0).
    """
    kl = check_positive("kl", kl, allow_zero=True, allow_inf=True)
    alpha, power = check_prob("alpha", alpha), check_prob("power", power)
    if power <= alpha:
        raise ValueError(f"power must exceed alpha={alpha!r}, got {power!r}")
    d = _bkl(power, alpha)
    return math.inf if kl == 0 else d / kl


def event_floor(
    p_num: float,
    p_den: float,
    *,
    epsilon: float,
    delta: float = 0.0,
    alpha: float,
    power: float,
    method: str = "auto",
) -> dict:
    """Both floors of one event with known probabilities (see the module docstring).

    Parameters
    ----------
    p_num : float
        The event's probability on the side it favours, in [0, 1].
    p_den : float
        Its probability on the other side, in [0, 1].
    epsilon : float
        The claimed ε (> 0).
    delta : float, default 0.0
        The claimed δ, in [0, 1).
    alpha : float
        Level of the certification of this one event, in (0, 1).
    power : float
        Required probability of certifying a violation, in (α, 1).
    method : {"auto", "poisson", "cp"}, default "auto"
        The certification's test (:func:`~htdp_verify.privacy.sizing.releases_needed`; ``"auto"``: Clopper–Pearson
        when δ > 0, the exact Poisson-conditional test when δ = 0).

    Returns
    -------
    dict
        ``log_ratio`` (``ln((p_num − δ) / p_den)``), ``fixed_n`` (releases per side the Clopper–Pearson
        certification needs, ``None`` when the event does not violate the claim or needs more than 10⁹),
        ``fixed_m`` (Clopper–Pearson only: the fixed releases per side behind it, ``⌊n − 2√n⌋``), ``kl`` and
        ``sequential`` (Wald's bound on the expected releases per side, ``inf`` when the event does not violate
        the claim).
    """
    p_num, p_den, epsilon, delta = _check_event(p_num, p_den, epsilon, delta)
    alpha, power = check_prob("alpha", alpha), check_prob("power", power)
    lr = math.inf if p_den == 0 else (math.log((p_num - delta) / p_den) if p_num > delta else -math.inf)
    cp = method == "cp" or (method == "auto" and delta > 0)
    n = None
    if lr > epsilon * (1.0 + _REL) and p_num > delta:
        r = int(
            releases_needed(
                epsilon, delta, target_epsilon=lr, event_floor=p_num, alpha=alpha, power=power, method=method
            )
        )
        n = None if r < 0 else r
    kl = bernoulli_kl_to_null(p_num, p_den, epsilon=epsilon, delta=delta)
    return {
        "p_num": p_num,
        "p_den": p_den,
        "log_ratio": lr,
        "fixed_n": n,
        "fixed_m": None if n is None or not cp else max(1, int(math.floor(n - 2.0 * math.sqrt(n)))),
        "kl": kl,
        "sequential": sequential_floor(kl, alpha=alpha, power=power),
    }


def oracle_floor(
    p_num,
    p_den,
    *,
    epsilon: float,
    delta: float = 0.0,
    alpha: float,
    power: float,
    method: str = "auto",
    labels=None,
) -> dict:
    """The floors of the best of a family of candidate events (each criterion minimised separately).

    Parameters
    ----------
    p_num : array_like
        Per candidate event, its probability on the side it favours.
    p_den : array_like
        Per candidate event, its probability on the other side (same length).
    epsilon : float
        The claimed ε (> 0).
    delta : float, default 0.0
        The claimed δ, in [0, 1).
    alpha : float
        Level of the certification of the one event, in (0, 1).
    power : float
        Required power, in (α, 1).
    method : {"auto", "poisson", "cp"}, default "auto"
        The certification's test (see :func:`event_floor`).
    labels : sequence, optional
        A label per event (e.g. its threshold), reported with the best ones.

    Returns
    -------
    dict
        ``fixed_n`` and ``sequential``: the best event's :func:`event_floor` entry for that criterion with its
        ``label`` and ``index`` (``None`` when no event violates the claim); ``events``: every event's floors.
    """
    pn, pd = np.atleast_1d(np.asarray(p_num, float)), np.atleast_1d(np.asarray(p_den, float))
    if pn.shape != pd.shape or pn.ndim != 1 or pn.size == 0:
        raise ValueError(f"p_num and p_den must be 1-d arrays of the same non-zero length, got {pn.shape}, {pd.shape}")
    labels = list(range(pn.size)) if labels is None else list(labels)
    if len(labels) != pn.size:
        raise ValueError(f"labels must have one entry per event ({pn.size}), got {len(labels)}")
    rows = []
    for i, (a, b) in enumerate(zip(pn, pd)):
        r = event_floor(float(a), float(b), epsilon=epsilon, delta=delta, alpha=alpha, power=power, method=method)
        rows.append({"index": i, "label": labels[i], **r})
    fixed = [r for r in rows if r["fixed_n"] is not None]
    seq = [r for r in rows if math.isfinite(r["sequential"])]
    return {
        "fixed_n": min(fixed, key=lambda r: r["fixed_n"]) if fixed else None,
        "sequential": min(seq, key=lambda r: r["sequential"]) if seq else None,
        "events": rows,
    }
