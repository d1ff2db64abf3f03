"""Multi-term fits: ``summary(error) ≈ Σ_j c_j x^{r_j} (log x)^{p_j}`` with known terms.

:func:`fit_terms` fits the non-negative constants (``scipy.optimize.nnls`` on relative residuals, bootstrap
intervals within each grid cell), locates the crossovers between active terms, and warns with a
:class:`~htdp_verify.rates.CrossoverWarning` when one lies inside the grid: a single exponent fitted over such a
grid (:func:`~htdp_verify.rates.fit_rate`) describes neither regime.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize
from scipy import stats as _st

from .._validate import check_int, check_prob
from ._common import CrossoverWarning, _boot_summary, _extract, _parse_summary, _resolve_rng, _summarise

__all__ = ["TermFit", "fit_terms"]


@dataclass
class TermFit:
    """``summary(error) ≈ Σ_j c_j · x^{r_j} · (log x)^{p_j}`` with ``c_j ≥ 0``.

    ``crossovers``: for each pair of active terms, the x where they are equal and whether it lies inside the grid;
    ``dominant``: index of the largest term at each grid value; ``local_exponent``: the fitted curve's
    d log / d log x at each grid value; ``lack_of_fit``: ``Σ (log y − log fit)² / var_boot(log y)`` with an
    approximate chi-square p-value on ``K − (#active terms)`` degrees of freedom.

    Parameters
    ----------
    variable : str
        The swept variable.
    summary : str
        The statistic of the error per grid value.
    terms : list
        The ``(r_j, p_j)`` of each term.
    constants : numpy.ndarray
        The fitted ``c_j ≥ 0``.
    constant_intervals : numpy.ndarray
        Their ``1 − alpha`` intervals.
    x : numpy.ndarray
        The grid values.
    summaries : numpy.ndarray
        The summary of the error at each grid value.
    fitted : numpy.ndarray
        The fitted curve.
    rel_residuals : numpy.ndarray
        Relative residuals.
    local_exponent : numpy.ndarray
        d log fit / d log x at each grid value.
    dominant : numpy.ndarray
        Index of the largest term at each grid value.
    crossovers : list
        For each pair of active terms, where they are equal and whether that lies inside the grid.
    lack_of_fit : float
        The lack-of-fit statistic.
    lack_of_fit_pvalue : float
        Its approximate p-value.
    alpha : float
        Level of the intervals.
    """

    variable: str
    summary: str
    terms: list
    constants: np.ndarray
    constant_intervals: np.ndarray
    x: np.ndarray
    summaries: np.ndarray
    fitted: np.ndarray
    rel_residuals: np.ndarray
    local_exponent: np.ndarray
    dominant: np.ndarray
    crossovers: list
    lack_of_fit: float
    lack_of_fit_pvalue: float
    alpha: float

    def term_values(self, x: ArrayLike | None = None) -> np.ndarray:
        """Each term's value ``c_j x^{r_j} (log x)^{p_j}`` at ``x`` (default: the grid); shape (len(x), m).

        Parameters
        ----------
        x : array_like, optional
            Where to evaluate the terms (default: the grid).

        Returns
        -------
        numpy.ndarray
            Shape (len(x), m).
        """
        x = self.x if x is None else np.asarray(x, dtype=float)
        return _design(x, self.terms) * self.constants

    def predict(self, x: ArrayLike) -> np.ndarray:
        return self.term_values(x).sum(axis=1)

    def describe(self) -> str:
        def tname(t):
            r, p = t
            return f"{self.variable}^{r:g}" + (f"·log({self.variable})^{p:g}" if p else "")

        lines = [
            f"{self.summary} error ≈ " + " + ".join(f"{c:.3g}·{tname(t)}" for c, t in zip(self.constants, self.terms))
        ]
        for cr in self.crossovers:
            where = "inside" if cr["inside_grid"] else "outside"
            lines.append(
                f"crossover of {tname(self.terms[cr['terms'][0]])} and {tname(self.terms[cr['terms'][1]])} "
                f"at {self.variable} ≈ {cr['x']:.4g} ({where} the grid)"
            )
        lines.append(
            f"max |relative residual| {np.max(np.abs(self.rel_residuals)):.3g}; "
            f"lack-of-fit p ≈ {self.lack_of_fit_pvalue:.3g}"
        )
        return "\n".join(lines)


def _norm_terms(exponents) -> list:
    terms = []
    for t in exponents:
        if isinstance(t, numbers.Real) and not isinstance(t, bool):
            terms.append((float(t), 0.0))
        elif isinstance(t, (tuple, list)) and len(t) == 2 and all(isinstance(v, numbers.Real) for v in t):
            terms.append((float(t[0]), float(t[1])))
        else:
            raise ValueError(f"exponents must be numbers r or pairs (r, p) for x^r·log(x)^p, got {t!r}")
    if not terms:
        raise ValueError("exponents must name at least one term")
    if len(set(terms)) != len(terms):
        raise ValueError(f"exponents must be distinct terms, got {exponents!r}")
    return terms


def _design(x, terms):
    lx = np.log(x)
    cols = []
    for r, p in terms:
        col = x**r
        if p:
            if np.any(lx <= 0):
                raise ValueError("log-factor terms need every x > 1")
            col = col * lx**p
        cols.append(col)
    return np.column_stack(cols)


def _nnls_rel(A, y):
    c, _ = optimize.nnls(A / y[:, None], np.ones_like(y))
    return c


def fit_terms(
    data: Any,
    exponents: Any,
    *,
    errors: ArrayLike | None = None,
    variable: str | None = None,
    output: str | None = None,
    summary: str = "median",
    alpha: float = 0.05,
    n_boot: int = 500,
    rng: np.random.Generator | None = None,
    warn: bool = True,
) -> TermFit:
    """Fit ``summary(error) ≈ Σ_j c_j x^{r_j} (log x)^{p_j}`` with known terms and constants ``c_j ≥ 0``.

    ``exponents``: e.g. ``[-0.5, -1.0]`` for ``c1/sqrt(n) + c2/n``, or ``[(-0.5, 0), (-1, 1)]`` for
    ``c1 n^{-1/2} + c2 log(n)/n``.  The constants minimise the sum of squared *relative* residuals
    (``scipy.optimize.nnls``), so every grid value counts equally whatever its magnitude; their ``1 − alpha``
    intervals come from the within-cell bootstrap.  Issues a :class:`CrossoverWarning` when two active terms
    cross inside the grid (then a single exponent fitted over the grid describes neither regime).

    Parameters
    ----------
    data : MonteCarloResult, DataFrame, tuple or array_like
        The errors, as for :func:`fit_rate`.
    exponents : sequence
        The terms: exponents ``r_j``, or pairs ``(r_j, p_j)`` with a power of log.
    errors, variable, output
        As for :func:`fit_rate`.
    summary : str, default "median"
        Statistic of the error per grid value.
    alpha : float, default 0.05
        Level of the intervals of the constants.
    n_boot : int, default 500
        Bootstrap resamples.
    rng : numpy.random.Generator, optional
        Generator of the bootstrap (default: seeded from the data).
    warn : bool, default True
        Issue the :class:`CrossoverWarning`.

    Returns
    -------
    TermFit
        The constants with their intervals, crossovers and lack of fit.
    """
    terms = _norm_terms(exponents)
    kind, q = _parse_summary(summary)
    alpha = check_prob("alpha", alpha)
    n_boot = check_int("n_boot", n_boot, minimum=50)
    x, cells, _, variable = _extract(data, errors, variable, output)
    if x.size < len(terms):
        raise ValueError(f"{len(terms)} terms need >= {len(terms)} grid values of {variable}, got {x.size}")
    rng = _resolve_rng(rng, x, cells)
    y = np.array([_summarise(c, kind, q) for c in cells])
    if np.any(y <= 0):
        raise ValueError(f"the {summary} of the errors must be > 0 at every grid value")
    A = _design(x, terms)
    c = _nnls_rel(A, y)
    fitted = A @ c
    boot = np.column_stack([_boot_summary(cell, kind, q, n_boot, rng) for cell in cells])
    cb = np.array([_nnls_rel(A, np.maximum(b, 1e-300)) for b in boot])
    ci = np.column_stack([np.percentile(cb, 100 * alpha / 2, axis=0), np.percentile(cb, 100 * (1 - alpha / 2), axis=0)])
    var_log = np.var(np.log(np.maximum(boot, 1e-300)), axis=0, ddof=1)
    var_log = np.maximum(var_log, 1e-12)
    with np.errstate(divide="ignore"):
        resid_log = np.log(y) - np.log(np.maximum(fitted, 1e-300))
    lof = float(np.sum(resid_log**2 / var_log))
    active = np.flatnonzero(c > 0)
    dof = x.size - active.size
    pval = float(_st.chi2.sf(lof, dof)) if dof > 0 else float("nan")
    tv = A * c
    with np.errstate(invalid="ignore", divide="ignore"):
        lx = np.log(x)
        dlog = np.column_stack([r + p / lx if p else np.full(x.size, r) for r, p in terms])  # d log term / d log x
        local = np.sum(tv * dlog, axis=1) / np.maximum(fitted, 1e-300)
    dominant = np.argmax(tv, axis=1)
    crossovers = []
    for i in active:
        for j in active:
            if j > i:
                xs = _find_crossing(terms[i], terms[j], c[i], c[j], x)
                if xs is not None:
                    crossovers.append({"terms": [int(i), int(j)], "x": xs, "inside_grid": bool(x[0] < xs < x[-1])})
    fit = TermFit(
        variable=variable,
        summary=summary,
        terms=terms,
        constants=c,
        constant_intervals=ci,
        x=x,
        summaries=y,
        fitted=fitted,
        rel_residuals=y / fitted - 1,
        local_exponent=local,
        dominant=dominant,
        crossovers=crossovers,
        lack_of_fit=lof,
        lack_of_fit_pvalue=pval,
        alpha=alpha,
    )
    inside = [cr for cr in crossovers if cr["inside_grid"]]
    if inside and warn:
        warnings.warn(
            f"the grid of {variable} in [{x[0]:g}, {x[-1]:g}] straddles a crossover between terms at "
            + ", ".join(f"{variable} ≈ {cr['x']:.4g}" for cr in inside)
            + f"; local exponents of the fit go from {local[0]:.3f} to {local[-1]:.3f}",
            CrossoverWarning,
            stacklevel=2,
        )
    return fit


def _find_crossing(ti, tj, ci, cj, x):
    """x where ``c_i·x^{r_i}(log x)^{p_i} = c_j·x^{r_j}(log x)^{p_j}`` (closed form without log factors, else the
    first sign change of the log-ratio on a grid around the data, refined by ``brentq``); None if none."""
    (ri, pi), (rj, pj) = ti, tj
    if pi == 0 and pj == 0:
        return None if ri == rj else float((cj / ci) ** (1.0 / (ri - rj)))

    def f(t):  # t = log x > 0
        return math.log(ci / cj) + (ri - rj) * t + (pi - pj) * math.log(t)

    lo, hi = math.log(x[0]), math.log(x[-1])
    grid = np.linspace(max(lo - 5, 1e-6), hi + 5, 800)
    vals = np.array([f(t) for t in grid])
    s = np.flatnonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) < 0)
    if s.size == 0:
        return None
    return float(math.exp(optimize.brentq(f, grid[s[0]], grid[s[0] + 1])))
