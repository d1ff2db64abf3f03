"""Selection part of peeling's exact privacy: the round win probabilities and the enumerated outcome classes.

Holds input validation for a pair of score vectors, the Gauss–Legendre quadrature of the round win probabilities
(``_WinProbabilities``) and the enumeration of outcome classes over groups of exchangeable coordinates
(``_outcomes``), for the argmax modes ``"remaining"`` / ``"all"`` and the releases ``"set"`` / ``"sequence"``.
The mechanism, method and accuracy are described in :mod:`htdp_verify.privacy.exact`, which builds the privacy
loss distributions from these outcomes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import product

import numpy as np
from scipy.special import gammaln, logsumexp, stirling2

from .._validate import check_int, check_positive

_ARGMAX = ("remaining", "all")
_RELEASE = ("set", "sequence")
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(32)
_PIECE = 2.0  # longest quadrature piece, in units of the Laplace scale
_TAIL = 60.0  # right tail cut, in units of the Laplace scale


# ----------------------------------------------------------------------------------------------- validation
def _choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def _scores(name, v) -> np.ndarray:
    arr = np.asarray(v, dtype=float)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"{name} must be a non-empty 1-d score vector, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (found NaN or inf)")
    return arr


def _check_pair(v, v_prime, s, scale, argmax, release, grid) -> tuple[np.ndarray, np.ndarray, int, float, float]:
    v = _scores("v", v)
    v_prime = _scores("v_prime", v_prime)
    if v.shape != v_prime.shape:
        raise ValueError(f"v and v_prime must have the same shape, got {v.shape} and {v_prime.shape}")
    s = check_int("s", s, minimum=1)
    if s > v.size:
        raise ValueError(f"s must lie in [1, d={v.size}], got {s}")
    scale = check_positive("scale", scale)
    _choice("argmax", argmax, _ARGMAX)
    _choice("release", release, _RELEASE)
    grid = check_positive("grid", grid)
    return v, v_prime, s, scale, grid


# ------------------------------------------------------------------------------------- round win probabilities
class _WinProbabilities:
    """``q(m)[g]``: probability that one given index of group g wins a round when ``m[h]`` indices of each
    group h compete (``m[g] ≥ 1``), scores ``u[h]``, Laplace scale ``b``. Cached by ``m``."""

    def __init__(self, u: np.ndarray, b: float):
        self.u, self.b = u, b
        knots = np.unique(u)
        edges = [knots[0]]
        for lo, hi in zip(knots[:-1], knots[1:]):
            k = max(1, int(math.ceil((hi - lo) / (_PIECE * b))))
            edges.extend(np.linspace(lo, hi, k + 1)[1:])
        k = int(math.ceil(_TAIL / _PIECE))
        edges.extend(knots[-1] + b * _PIECE * np.arange(1, k + 1))
        edge_arr = np.asarray(edges)
        lo, hi = edge_arr[:-1, None], edge_arr[1:, None]
        x = (0.5 * (hi - lo) * _GL_NODES[None, :] + 0.5 * (hi + lo)).ravel()
        self.w = (0.5 * (hi - lo) * _GL_WEIGHTS[None, :]).ravel()
        z = (x[None, :] - u[:, None]) / b  # (G, N)
        self.logF = np.where(z < 0, math.log(0.5) + np.minimum(z, 0.0), np.log1p(-0.5 * np.exp(-np.abs(z))))
        self.logf = -math.log(2 * b) - np.abs(z)
        self.x0 = knots[0]
        z0 = (self.x0 - u) / b  # ≤ 0: every group is in the left regime at and below x0
        self.logF0 = math.log(0.5) + z0
        self.logf0 = -math.log(2 * b) + z0
        self._cache: dict = {}

    def __call__(self, m) -> np.ndarray:
        key = tuple(int(c) for c in m)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        m = np.asarray(key, dtype=float)
        base = m @ self.logF  # Σ_h m_h log F_h(x), (N,)
        log_int = self.logf - self.logF + base[None, :]  # winner g: one of its group's F replaced by f
        body = np.exp(log_int) @ self.w
        total = m.sum()
        log_x0 = self.logf0 - self.logF0 + m @ self.logF0  # integrand at x0; ∫_{-inf}^{x0} = value · b / total
        tail = np.exp(log_x0) * self.b / total
        q = np.where(m > 0, body + tail, 0.0)
        self._cache[key] = q
        return q


# ------------------------------------------------------------------------------------- outcome enumeration
@dataclass
class _Outcomes:
    """Outcome classes: log multiplicity, log P and log Q of one member outcome, and chosen counts per group."""

    log_mult: list = field(default_factory=list)
    log_p: list = field(default_factory=list)
    log_q: list = field(default_factory=list)
    k: list = field(default_factory=list)
    label: list = field(default_factory=list)


def _log(p: float) -> float:
    if not p > 0:
        raise ValueError(
            "a selection probability underflowed to 0 (score gaps of hundreds of noise scales); "
            "reduce the gaps or raise scale"
        )
    return math.log(p)


def _log_comb(n, k):
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _log_falling(n, k):
    return gammaln(n + 1) - gammaln(n - k + 1)


def _compositions(total, parts):
    """All non-negative integer vectors of length ``parts`` summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def _enumerate_remaining(n, s, qp, qq, release) -> _Outcomes:
    G = len(n)
    out = _Outcomes()
    if release == "sequence":

        def walk(path, k, lp, lq):
            if len(path) == s:
                out.log_mult.append(float(np.sum(_log_falling(n, np.asarray(k)))))
                out.log_p.append(lp)
                out.log_q.append(lq)
                out.k.append(tuple(k))
                out.label.append(tuple(path))
                return
            m = n - np.asarray(k)
            pp, pq = qp(m), qq(m)
            for g in range(G):
                if m[g] > 0:
                    k2 = list(k)
                    k2[g] += 1
                    walk(path + [g], k2, lp + _log(pp[g]), lq + _log(pq[g]))

        walk([], [0] * G, 0.0, 0.0)
        return out
    # set release: A(k) = Σ_g A(k − e_g) q(n − k + e_g)[g]; P(one set with counts k) = ∏ k_g! · A(k)
    logA = {tuple([0] * G): (0.0, 0.0)}
    for r in range(1, s + 1):
        new = {}
        for k in _compositions(r, G):
            if any(k[g] > n[g] for g in range(G)):
                continue
            terms_p, terms_q = [], []
            for g in range(G):
                if k[g] == 0:
                    continue
                before = list(k)
                before[g] -= 1
                prev = tuple(before)
                if prev not in logA:
                    continue
                m = n - np.asarray(prev)
                terms_p.append(logA[prev][0] + _log(qp(m)[g]))
                terms_q.append(logA[prev][1] + _log(qq(m)[g]))
            new[k] = (float(logsumexp(terms_p)), float(logsumexp(terms_q)))
        logA = new
    for k, (lp, lq) in logA.items():
        kk = np.asarray(k)
        lfact = float(np.sum(gammaln(kk + 1)))
        out.log_mult.append(float(np.sum(_log_comb(n, kk))))
        out.log_p.append(lp + lfact)
        out.log_q.append(lq + lfact)
        out.k.append(k)
        out.label.append(k)
    return out


def _enumerate_all(n, s, pp, pq, release) -> _Outcomes:
    """argmax over all of [d]: s i.i.d. draws from the per-index win law (pp, pq per group member)."""
    G = len(n)
    out = _Outcomes()
    lpp, lpq = np.array([_log(x) for x in pp]), np.array([_log(x) for x in pq])
    lmult_c = {c: gammaln(s + 1) - float(np.sum(gammaln(np.asarray(c) + 1))) for c in _compositions(s, G)}

    # surjections of c_g draws onto k_g given indices: k_g! S2(c_g, k_g)
    def log_surj(c, k):
        return math.log(math.factorial(k)) + math.log(stirling2(c, k, exact=True)) if c else 0.0

    def k_range(c):
        return [range(1, min(cg, n[g]) + 1) if cg else range(0, 1) for g, cg in enumerate(c)]

    if release == "sequence":
        for c, lmc in lmult_c.items():
            ca = np.asarray(c)
            lp, lq = float(ca @ lpp), float(ca @ lpq)
            for k in product(*k_range(c)):
                ls = sum(log_surj(c[g], k[g]) for g in range(G))
                lm = lmc + float(np.sum(_log_comb(n, np.asarray(k)))) + ls
                out.log_mult.append(lm)
                out.log_p.append(lp)
                out.log_q.append(lq)
                out.k.append(tuple(k))
                out.label.append((c, tuple(k)))
        return out
    acc: dict = {}
    for c, lmc in lmult_c.items():
        ca = np.asarray(c)
        lp, lq = float(ca @ lpp), float(ca @ lpq)
        for k in product(*k_range(c)):
            ls = sum(log_surj(c[g], k[g]) for g in range(G))
            acc.setdefault(tuple(k), ([], []))
            acc[tuple(k)][0].append(lmc + ls + lp)
            acc[tuple(k)][1].append(lmc + ls + lq)
    for k, (tp, tq) in acc.items():
        out.log_mult.append(float(np.sum(_log_comb(n, np.asarray(k)))))
        out.log_p.append(float(logsumexp(tp)))
        out.log_q.append(float(logsumexp(tq)))
        out.k.append(k)
        out.label.append(k)
    return out


def _groups(v, v_prime, group):
    if group:
        keys, inverse, counts = np.unique(
            np.stack([v, v_prime], axis=1), axis=0, return_inverse=True, return_counts=True
        )
        return keys[:, 0], keys[:, 1], counts.astype(np.int64), inverse.ravel()
    return v.copy(), v_prime.copy(), np.ones(v.size, dtype=np.int64), np.arange(v.size)


def _outcomes(vg, vpg, n, s, b, argmax, release, absolute):
    up, uq = (np.abs(vg), np.abs(vpg)) if absolute else (vg, vpg)
    qp, qq = _WinProbabilities(up, b), _WinProbabilities(uq, b)
    if argmax == "remaining":
        return _enumerate_remaining(n, s, qp, qq, release)
    return _enumerate_all(n, s, qp(n), qq(n), release)
