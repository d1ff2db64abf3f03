"""Stand-alone reproduction scripts for violations found in diffprivlib: :func:`repro_script` writes a script using
only numpy, scipy and diffprivlib (the pair, the release as plain diffprivlib calls, the certified event when it is
a simple one, and a Clopper-Pearson ε bound).
"""

from __future__ import annotations

import json
import re

import numpy as np

from estimators.dpl import DPLAdapter, DPLMechanism, DPLModel, DPLTool

from .space import WeightedHistogram

__all__ = ["repro_script"]


# ---------------------------------------------------------------------------------------------------------
# reproduction scripts
# ---------------------------------------------------------------------------------------------------------
def _py(x) -> str:
    """A Python literal for parameters (arrays become lists)."""
    if isinstance(x, np.ndarray):
        return repr(x.tolist())
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_py(v) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
    if isinstance(x, (np.floating, np.integer)):
        return repr(x.item())
    if isinstance(x, type):
        return x.__name__
    return repr(x)


def _kwargs_src(d: dict) -> str:
    return ", ".join(f"{k}={_py(v)}" for k, v in d.items())


def _release_source(adapter: DPLAdapter, columns: int = 1) -> str:
    """Source of ``release(data, seed)`` with plain diffprivlib calls, equal to the adapter's release
    (``columns``: the data's columns, so that an empty add/remove side keeps its shape)."""
    if isinstance(adapter, WeightedHistogram):  # the data's last column is the record's weight
        kw = ", ".join(f"{k}={v!r}" for k, v in adapter.kwargs.items())
        vals = "d[:, 0]" if adapter.tool == "histogram" else "d[:, :-1]"
        return (
            f"def release(data, seed):\n    d = np.asarray(data, dtype=float).reshape(-1, {columns})\n"
            f"    out = diffprivlib.tools.{adapter.tool}({vals}, epsilon={adapter.epsilon!r}, weights=d[:, -1], "
            f"{kw}, random_state=seed, accountant=BudgetAccountant())\n"
            "    return np.ravel(np.asarray(out[0], dtype=float))\n"
        )
    if isinstance(adapter, DPLMechanism):
        kw = dict(adapter._kwargs)
        if adapter.kind == "utility":
            return (
                f"def release(data, seed):\n"
                f"    m = diffprivlib.mechanisms.{adapter.mechanism}({_kwargs_src(kw)}, utility=list(data), "
                f"random_state=seed)\n    return float(m.randomise())\n"
            )
        if adapter.kind == "binary":
            return (
                f"def release(data, seed):\n"
                f"    m = diffprivlib.mechanisms.Binary({_kwargs_src(kw)}, random_state=seed)\n"
                f"    return float(int(m.randomise(str(int(data)))))\n"
            )
        return (
            f"def release(data, seed):\n"
            f"    m = diffprivlib.mechanisms.{adapter.mechanism}({_kwargs_src(kw)}, random_state=seed)\n"
            f"    return float(m.randomise(data))\n"
        )
    if isinstance(adapter, DPLTool):
        kw = dict(adapter.kwargs)
        if adapter.bounds is not None:
            kw["bounds"] = adapter.bounds
        hist = adapter.tool in ("histogram", "histogramdd")
        return (
            f"def release(data, seed):\n"
            f"    out = diffprivlib.tools.{adapter.tool}(np.asarray(data), epsilon={adapter.epsilon!r}, "
            f"{_kwargs_src(kw)}{', ' if kw else ''}random_state=seed, accountant=BudgetAccountant())\n"
            f"    return np.ravel(np.asarray({'out[0]' if hist else 'out'}, dtype=float))\n"
        )
    if isinstance(adapter, DPLModel):
        name = adapter.model
        kw = {
            k: v
            for k, v in adapter.params.items()
            if not (k == "classes" and name in ("LogisticRegression", "GaussianNB"))
        }
        if name == "RandomForestClassifier":
            kw["n_jobs"] = 1
        src = [
            "def release(data, seed):",
            "    data = np.array(data, dtype=float)",
            f"    m = diffprivlib.models.{name}(epsilon={adapter.epsilon!r}, {_kwargs_src(kw)}, random_state=seed, "
            f"accountant=BudgetAccountant())",
        ]
        if adapter.supervised:
            src.append("    X, y = data[:, :-1], data[:, -1]")
        if name == "GaussianNB":
            src.append(f"    m.partial_fit(X, y, classes=np.array({_py(adapter.params['classes'])}))")
            src.append("    return np.concatenate([m.theta_.ravel(), m.var_.ravel(), m.class_count_.ravel()])")
        elif name == "LinearRegression":
            src.append("    m.fit(X, y)")
            src.append(
                "    # coef_, intercept_, then the noisy objective coefficients (Σy², Xᵀy, XᵀX) kept on the model"
            )
            src.append(
                "    return np.concatenate([np.ravel(m.coef_), np.ravel(m.intercept_)]"
                " + [np.ravel(c) for c in m._obj_coefs])"
            )
        elif name == "LogisticRegression" and len(adapter.params["classes"]) >= 3:
            src += [
                "    m.fit(X, y)",
                "    # one row per declared class: a class absent from y gets a zero row; with two classes present,",
                "    # classes_[1] gets the fitted (coef_, intercept_) and classes_[0] its negation",
                f"    cl = np.array({_py(adapter.params['classes'])}, dtype=float)",
                "    coef = np.asarray(m.coef_, dtype=float).reshape(-1, X.shape[1])",
                "    b0 = np.broadcast_to(np.ravel(np.asarray(m.intercept_, dtype=float)), (coef.shape[0],))",
                "    W, b = np.zeros((cl.size, X.shape[1])), np.zeros(cl.size)",
                "    idx = np.searchsorted(cl, np.asarray(m.classes_, dtype=float))",
                "    if idx.size == 2:",
                "        W[idx[1]], b[idx[1]], W[idx[0]], b[idx[0]] = coef[0], b0[0], -coef[0], -b0[0]",
                "    else:",
                "        W[idx], b[idx] = coef, b0",
                "    return np.concatenate([W.ravel(), b])",
            ]
        elif name == "LogisticRegression":
            src.append("    m.fit(X, y)")
            src.append("    return np.concatenate([np.ravel(m.coef_), np.ravel(m.intercept_)])")
        elif name == "RandomForestClassifier":
            from estimators.dpl import _probe_grid

            probe = adapter.probe if adapter.probe is not None else _probe_grid(adapter.params["bounds"], 2)
            src.append("    m.fit(X, y)")
            src.append(f"    return m.predict_proba(np.array({_py(probe)})).ravel()")
        else:
            src.append("    m.fit(data)")
            attrs = {
                "KMeans": ["cluster_centers_"],
                "PCA": ["components_", "explained_variance_", "mean_"],
                "StandardScaler": list(adapter.released_attributes),
            }[name]
            src.append("    return np.concatenate([" + ", ".join(f"np.ravel(m.{a})" for a in attrs) + "])")
        return "\n".join(src) + "\n"
    raise ValueError(f"adapter must be a DPLMechanism, DPLTool or DPLModel, got {type(adapter).__name__}")


_EV_THRESH = re.compile(r"^output(?:\[(\d+)\])? (>=|<=) (\S+)$")
_EV_INTERVAL = re.compile(r"^(\S+) <= output(?:\[(\d+)\])? <= (\S+)$")
_EV_SET = re.compile(r"^output in \{(.*)\}$")


def _event_source(desc: str) -> str | None:
    """``def event(Y) -> bool array`` for simple events (coordinate / identity thresholds, intervals, small sets)."""
    m = _EV_THRESH.match(desc)
    if m:
        j, side, t = m.groups()
        col = f"Y[:, {int(j)}]" if j is not None else "Y[:, 0]"
        return f"def event(Y):\n    return {col} {side} {float(t)!r}\n"
    m = _EV_INTERVAL.match(desc)
    if m:
        a, j, b = m.groups()
        col = f"Y[:, {int(j)}]" if j is not None else "Y[:, 0]"
        return f"def event(Y):\n    return ({col} >= {float(a)!r}) & ({col} <= {float(b)!r})\n"
    m = _EV_SET.match(desc)
    if m and "…" not in desc:
        try:
            vals = json.loads("[" + m.group(1).replace("(", "[").replace(")", "]") + "]")
        except ValueError:
            return None
        if all(isinstance(v, (int, float)) for v in vals):
            return f"def event(Y):\n    return np.isin(Y[:, 0], {vals!r})\n"
        return (
            f"OUTCOMES = np.array({vals!r}, dtype=float)\n\n"
            f"def event(Y):\n    return (Y[:, None, :] == OUTCOMES[None, :, :]).all(axis=2).any(axis=1)\n"
        )
    return None


def repro_script(adapter: DPLAdapter, res) -> str:
    """A stand-alone script (numpy, scipy, diffprivlib only) that reproduces a violation: the pair, the release as
    plain diffprivlib calls, the certified event when it is a simple one (otherwise the best single-coordinate
    threshold, chosen on one half of the releases and evaluated on the other), and a Clopper–Pearson ε bound."""
    pair = res.details["pair"]
    d, dp = pair["d"], pair["d_prime"]
    if isinstance(d, dict) or isinstance(dp, dict):
        raise ValueError("pair too large to embed in a reproduction script")
    desc = res.event
    ev_src = _event_source(desc)
    n = 400 if isinstance(adapter, DPLModel) else (4000 if isinstance(adapter, DPLTool) else 100_000)
    claim = adapter.privacy
    if claim is None:
        raise ValueError(f"adapter {adapter.name!r} declares no privacy guarantee: nothing to reproduce against")
    header = f'''"""Reproduction: diffprivlib {adapter.name} at claimed {claim} ({res.name}).

htdp-verify certified epsilon >= {res.epsilon_lb:.4g} at {100 * (1 - res.alpha):.4g}% confidence \
(claim: {claim.epsilon:g}).
Pair ({pair.get("relation")}): {pair.get("label")}
Certified event: {desc} ({res.details["event"].get("orientation")})
Counts: {res.counts.get("numerator")}/{res.counts.get("n_per_side")} \
vs {res.counts.get("denominator")}/{res.counts.get("n_per_side")}
Relation: {adapter.relation_note}

Run: python {{this file}} [releases per side]   (needs numpy, scipy, diffprivlib==0.6.6)
"""
import sys
import warnings

import numpy as np
from scipy.stats import beta

import diffprivlib
from diffprivlib.accountant import BudgetAccountant

warnings.simplefilter("ignore", FutureWarning)
warnings.simplefilter("ignore", DeprecationWarning)

D = {_py(d) if not isinstance(d, (int, float)) else repr(d)}
D_PRIME = {_py(dp) if not isinstance(dp, (int, float)) else repr(dp)}
CLAIMED_EPSILON = {claim.epsilon!r}
CLAIMED_DELTA = {claim.delta!r}

'''
    sides = [np.asarray(x, dtype=float) for x in (d, dp)]
    columns = max((x.reshape(len(x), -1).shape[1] for x in sides if x.ndim and x.size), default=1)
    body = _release_source(adapter, columns) + "\n\n"
    if ev_src:
        body += "# the event certified by htdp-verify (fixed before the certification samples were drawn)\n" + ev_src
    else:
        body += (
            "# the certified event was a learned / projected score; use instead the best single-coordinate\n"
            "# threshold or atom, chosen on the first half of the releases and counted on the second half\n"
            "event = None\n"
        )
    body += f'''

def eps_lower_bound(k1, k2, n, alpha=0.05, delta=0.0):
    """ln((P1_lo - delta) / P2_hi), exact Clopper-Pearson bounds at alpha/2 each."""
    lo = beta.ppf(alpha / 2, k1, n - k1 + 1) if k1 > 0 else 0.0
    hi = beta.ppf(1 - alpha / 2, k2 + 1, n - k2) if k2 < n else 1.0
    return float(np.log((lo - delta) / hi)) if lo > delta else 0.0


def _hits(Y, j, side, t):
    return Y[:, j] >= t if side == ">=" else Y[:, j] <= t if side == "<=" else Y[:, j] == t


def best_coordinate_threshold(Y1, Y2):
    """The best one-sided threshold or atom (a value taken by >= 10 % of one side's releases) of one coordinate."""
    best = (-1.0, None)
    for j in range(Y1.shape[1]):
        cands = [(side, t) for t in np.unique(np.quantile(np.r_[Y1[:, j], Y2[:, j]], np.linspace(0.01, 0.99, 99)))
                 for side in (">=", "<=")]
        for Y in (Y1, Y2):
            vals, cnt = np.unique(Y[:, j], return_counts=True)
            cands += [("==", v) for v in vals[cnt >= 0.1 * Y.shape[0]]]
        for side, t in cands:
            a, b = np.mean(_hits(Y1, j, side, t)), np.mean(_hits(Y2, j, side, t))
            for num, den, swap in ((a, b, False), (b, a, True)):
                gap = np.log((num + 1e-3) / (den + 1e-3))
                if gap > best[0]:
                    best = (gap, (j, side, t, swap))
    j, side, t, swap = best[1]
    return (lambda Y: _hits(Y, j, side, t)), swap, f"output[{{j}}] {{side}} {{t:.6g}}"


def main(n={n}):
    seeds = np.arange(2 * n)
    Y1 = np.array([np.atleast_1d(release(D, int(s))) for s in seeds], dtype=float)
    Y2 = np.array([np.atleast_1d(release(D_PRIME, int(s) + 10**9)) for s in seeds], dtype=float)
    swap, what = False, "certified event"
    ev = event
    if ev is None:
        ev, swap, what = best_coordinate_threshold(Y1[:n], Y2[:n])
        Y1, Y2 = Y1[n:], Y2[n:]
    else:
        Y1, Y2 = Y1[:n], Y2[:n]
    k1, k2 = int(np.sum(ev(Y1))), int(np.sum(ev(Y2)))
    if swap or k2 > k1:
        k1, k2 = k2, k1
    m = Y1.shape[0]
    lb = eps_lower_bound(k1, k2, m, delta=CLAIMED_DELTA)
    print(f"{{what}}: {{k1}}/{{m}} vs {{k2}}/{{m}} releases; epsilon >= {{lb:.4g}} at 95% confidence "
          f"(claimed {{CLAIMED_EPSILON}})")
    return lb


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else {n})
'''
    return header + body
