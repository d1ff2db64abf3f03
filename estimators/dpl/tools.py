""":class:`DPLTool`: a ``diffprivlib.tools`` function (mean, var, quantile, histogram, ...) as ``m(data, size, rng)``
with explicit bounds and a private accountant per release, and its factory :func:`dpl_tool`.
"""

from __future__ import annotations

import inspect

import numpy as np

from htdp_verify._validate import check_positive
from htdp_verify.privacy import PrivacyGuarantee
from htdp_verify.privacy.dpl_adapter import DPLAdapter

from ..base import as_data
from .contract import EstimatorContract
from .tables import _TOOL_NOTES, TOOLS, _check_bounds_pair, _dpl

__all__ = ["DPLTool", "dpl_tool"]


class DPLTool(EstimatorContract, DPLAdapter):
    """A ``diffprivlib.tools`` function as ``m(data, size, rng)`` (and as an estimator: ``sample(data, size,
    rng=rng)``, ``m(data, rng=rng)``; :mod:`.contract`).

    Parameters
    ----------
    tool: a name in :data:`TOOLS`.
    epsilon: ε passed to the tool (with ``axis`` set, diffprivlib splits it over the outputs).
    bounds: ``(lower, upper)`` (scalars or per-output vectors); required for all but ``count_nonzero`` and the
        histograms.
    range, bins: the histograms' range (required) and bins; ``histogramdd`` takes a list of ``(lo, hi)``.
    quant / percent: the quantile(s) of ``quantile`` / the percentile(s) of ``percentile``.
    axis, dtype, keepdims, weights, density: passed through where the tool accepts them.
    n_jobs: worker processes.

    Release: the tool's output as a float array (for histograms the counts only; the edges are data-independent).
    Claimed guarantee: ε-DP (δ = 0) under the relation in :data:`TOOLS` (see the module docstring).
    """

    def __init__(self, tool: str, *, epsilon: float, bounds=None, n_jobs: int = 1, **kwargs):
        super().__init__(n_jobs)
        if tool not in TOOLS:
            raise ValueError(f"tool must be one of {sorted(TOOLS)}, got {tool!r}")
        self.tool = tool
        self.epsilon = check_positive("epsilon", epsilon)
        needs_bounds, relation = TOOLS[tool]
        func = getattr(_dpl().tools, tool)
        accepted = set(inspect.signature(func).parameters) - {
            "array",
            "sample",
            "a",
            "epsilon",
            "random_state",
            "accountant",
            "unused_args",
            "bounds",
        }
        bad = set(kwargs) - accepted
        if bad:
            raise ValueError(f"tools.{tool} does not accept {sorted(bad)} (accepted: {sorted(accepted)})")
        if needs_bounds:
            _check_bounds_pair("bounds", bounds)
        elif bounds is not None:
            raise ValueError(f"bounds: tools.{tool} takes no bounds")
        if tool in ("histogram", "histogramdd"):
            bins = kwargs.get("bins", 10)
            explicit_edges = np.ndim(np.array(bins, dtype=object)) > 0 and (
                tool == "histogram" or all(np.ndim(b) for b in bins)
            )
            if kwargs.get("range") is None and not explicit_edges:
                raise ValueError(f"range is required for tools.{tool} (or explicit bin edges)")
            if tool == "histogramdd" and kwargs.get("range") is not None:
                for r in kwargs["range"]:
                    _check_bounds_pair("range", r)
            elif tool == "histogram" and kwargs.get("range") is not None:
                _check_bounds_pair("range", kwargs["range"])
        if tool in ("quantile", "percentile"):
            key = "quant" if tool == "quantile" else "percent"
            if key not in kwargs:
                raise ValueError(f"{key} is required for tools.{tool}")
            q = np.asarray(kwargs[key], dtype=float)
            top = 100.0 if tool == "percentile" else 1.0
            if q.size < 1 or np.any(~np.isfinite(q)) or np.any(q < 0) or np.any(q > top):
                raise ValueError(f"{key} must lie in [0, {top:g}], got {kwargs[key]!r}")
        self.bounds = bounds
        self.kwargs = dict(kwargs)
        self.name = f"tools.{tool}"
        self.privacy = PrivacyGuarantee(self.epsilon, 0.0, relation)
        self.relation_note = _TOOL_NOTES[relation]
        self.min_chunk = 200

    def _validate(self, data):
        ndim = (2,) if self.tool == "histogramdd" else (1, 2)
        return as_data(data, "data", ndim=ndim)

    def get_params(self) -> dict:
        """The constructor arguments (``tool``, ``epsilon``, ``bounds``, ``n_jobs`` and the tool's own)."""
        return {"tool": self.tool, "epsilon": self.epsilon, "bounds": self.bounds, "n_jobs": self.n_jobs, **self.kwargs}

    def box(self):
        """``(lower, upper, record_shape)``: the public domain of one record (``bounds``; the histograms' range or
        outer bin edges; ``[0, 1]`` for ``count_nonzero``); ``record_shape`` is ``()`` for scalar records."""
        if self.tool == "histogramdd":
            rng_ = self.kwargs.get("range")
            if rng_ is None:
                rng_ = [(float(np.min(b)), float(np.max(b))) for b in self.kwargs["bins"]]
            lo, hi = np.array([r[0] for r in rng_], float), np.array([r[1] for r in rng_], float)
            return lo, hi, lo.shape
        if self.tool == "histogram":
            rng_ = self.kwargs.get("range")
            if rng_ is None:
                edges = np.asarray(self.kwargs["bins"], float)
                rng_ = (edges.min(), edges.max())
            return float(rng_[0]), float(rng_[1]), ()
        if self.bounds is None:  # count_nonzero
            return 0.0, 1.0, ()
        lo, hi = (np.asarray(b, dtype=float) for b in self.bounds)
        shape = np.broadcast_shapes(lo.shape, hi.shape)
        return np.broadcast_to(lo, shape), np.broadcast_to(hi, shape), shape

    def dp_tags(self) -> dict:
        """Declared properties for :mod:`htdp_verify.estimator_checks`: one release runs diffprivlib's own code
        (a fraction of a millisecond: the checks' smaller sizes); the data are 20 records drawn uniformly in the
        public domain (:meth:`box`; 2-d when the domain is per column; zeros and ones for ``count_nonzero``) with
        record 0 at the domain's lower end; the generated neighbours stay in the domain, and among them record 0
        moved to the upper end is the worst case of a bounded-sensitivity tool (replace-one); the histograms
        (add/remove) get a record added at the domain's ends, removed or duplicated."""
        lo, hi, shape = self.box()

        def data(rng):
            if self.tool == "count_nonzero":  # zeros and ones: a count inside (0, n), not at its truncation bound
                x = rng.integers(0, 2, size=20).astype(float)
            else:
                x = rng.uniform(lo, hi, size=(20,) + tuple(shape))
            x[0] = lo
            return x

        return {
            "expensive": True,
            "input_ndim": (2,) if self.tool == "histogramdd" else (1, 2),
            "data": data,
            "neighbours": {"lower": lo, "upper": hi, "max_pairs": 3},
        }

    def _chunk_state(self, data, rs):
        return getattr(_dpl().tools, self.tool)

    def _release(self, data, rs, func):
        from diffprivlib.accountant import BudgetAccountant

        kw = dict(self.kwargs)
        if self.bounds is not None:
            kw["bounds"] = self.bounds
        out = func(data, epsilon=self.epsilon, random_state=rs, accountant=BudgetAccountant(), **kw)
        if self.tool in ("histogram", "histogramdd"):
            out = out[0]
        return np.asarray(out, dtype=float)

    def call_diffprivlib(self, data, seed: int):
        """The direct diffprivlib call this adapter makes for one release (for tests and reproduction scripts)."""
        from diffprivlib.accountant import BudgetAccountant

        kw = dict(self.kwargs)
        if self.bounds is not None:
            kw["bounds"] = self.bounds
        return getattr(_dpl().tools, self.tool)(
            data, epsilon=self.epsilon, random_state=int(seed), accountant=BudgetAccountant(), **kw
        )


# ------------------------------------------------------------------------------------------------------


def dpl_tool(tool: str, *, epsilon: float, bounds=None, n_jobs: int = 1, **kwargs) -> DPLTool:
    """``DPLTool(...)``: a diffprivlib tool as ``m(data, size, rng)``."""
    return DPLTool(tool, epsilon=epsilon, bounds=bounds, n_jobs=n_jobs, **kwargs)
