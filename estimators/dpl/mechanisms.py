""":class:`DPLMechanism`: a diffprivlib mechanism's scalar ``randomise`` as a dataset-level mechanism
``m(value, size, rng)`` (neighbours: values within ``sensitivity``), and its factory :func:`dpl_mechanism`.
"""

from __future__ import annotations

import inspect

import numpy as np

from htdp_verify._validate import check_positive, check_prob
from htdp_verify.privacy import PrivacyGuarantee
from htdp_verify.privacy.dpl_adapter import DPLAdapter

from .contract import NOT_A_DATASET, EstimatorContract, scalar_pairs
from .tables import MECHANISMS, _dpl

__all__ = ["DPLMechanism", "dpl_mechanism"]


class DPLMechanism(EstimatorContract, DPLAdapter):
    """A diffprivlib mechanism's scalar ``randomise`` as ``m(value, size, rng)`` (and as an estimator:
    ``sample(value, size, rng=rng)``, ``m(value, rng=rng)``; :mod:`.contract`).

    Parameters
    ----------
    mechanism: a name in :data:`MECHANISMS` (``"Laplace"``, ``"GaussianAnalytic"``, ...).
    epsilon, delta: the privacy parameters passed to the mechanism (``delta`` only where it accepts one).
    n_jobs: worker processes.
    **params: the mechanism's other constructor arguments (``sensitivity``, ``lower``, ``upper``, ``gamma``,
        ``monotonic``, ...).  ``utility`` (Exponential, PermuteAndFlip) and ``value0``/``value1`` (Binary) are
        supplied by the adapter: ``data`` *is* the utility vector / the bit.

    Data: one value (a real or integer scalar or a one-element 1-d array, see :data:`MECHANISMS`), or for
    ``utility`` mechanisms a 1-d vector of scores.  Release: the randomised value (the chosen index for
    ``utility``, the bit for ``Binary``).

    Claimed guarantee: (ε, δ)-DP for inputs ``x, x'`` with ``|x - x'| <= sensitivity`` (``max_i |u_i - u'_i| <=
    sensitivity`` for utilities; any two bits for Binary), inside ``[lower, upper]`` for bounded mechanisms;
    recorded as ``neighbours="replace"`` (the dataset is the single value, replaced).
    """

    def __init__(self, mechanism: str, *, epsilon: float, delta: float = 0.0, n_jobs: int = 1, **params):
        super().__init__(n_jobs)
        if mechanism not in MECHANISMS:
            raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}, got {mechanism!r}")
        self.mechanism = mechanism
        self.kind = MECHANISMS[mechanism]
        self.epsilon = check_positive("epsilon", epsilon)
        self.delta = check_prob("delta", delta, open_low=False)
        cls = getattr(_dpl().mechanisms, mechanism)
        accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "random_state"}
        if "delta" not in accepted and self.delta:
            raise ValueError(f"delta: {mechanism} takes no delta (it claims pure ε-DP), got delta={delta!r}")
        supplied = {"utility"} if self.kind == "utility" else {"value0", "value1"} if self.kind == "binary" else set()
        bad = set(params) - (accepted - {"epsilon", "delta"} - supplied)
        if bad:
            raise ValueError(
                f"{mechanism} does not accept {sorted(bad)} here (accepted: {sorted(accepted - supplied)})"
            )
        self.params = dict(params)
        kwargs = {"epsilon": self.epsilon, **self.params}
        if "delta" in accepted:
            kwargs["delta"] = self.delta
        if self.kind == "utility":
            kwargs.setdefault("sensitivity", 1.0)
            self.params.setdefault("sensitivity", 1.0)
        if self.kind == "binary":
            kwargs.update(value0="0", value1="1")
        self._kwargs = kwargs
        # construct once now so diffprivlib's own parameter validation runs at construction time
        probe = dict(kwargs)
        if self.kind == "utility":
            probe["utility"] = [0.0, 0.0]
        try:
            cls(**probe)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{mechanism} rejected its parameters: {e}") from None
        self.name = f"mechanisms.{mechanism}"
        self.sensitivity = float(kwargs.get("sensitivity", 1.0))
        self.lower = params.get("lower")
        self.upper = params.get("upper")
        self.privacy = PrivacyGuarantee(self.epsilon, self.delta, "replace")
        what = "utility vectors at sup-distance" if self.kind == "utility" else "values at distance"
        self.relation_note = (
            f"the dataset is the value passed to randomise; neighbours are {what} <= sensitivity={self.sensitivity:g}"
            + (f" inside [{self.lower}, {self.upper}]" if self.lower is not None else "")
            + (" (the two labels)" if self.kind == "binary" else "")
        )
        self.min_chunk = 2000

    def _validate(self, data):
        if self.kind == "utility":
            u = np.asarray(data, dtype=float)
            if u.ndim != 1 or u.size < 1 or not np.all(np.isfinite(u)):
                raise ValueError(f"data must be a finite 1-d utility vector for {self.mechanism}, got {data!r}")
            return u
        arr = np.asarray(data)
        if arr.size != 1 or arr.ndim > 1 or arr.dtype.kind not in "biuf":
            raise ValueError(f"data must be one real number for {self.mechanism}, got {data!r}")
        v = arr.reshape(()).item()
        if not np.isfinite(v):
            raise ValueError(f"data must be finite, got {data!r}")
        if self.kind in ("integer", "integer_bounded", "binary"):
            if v != int(v):
                raise ValueError(f"data must be an integer for {self.mechanism}, got {data!r}")
            v = int(v)
            if self.kind == "binary" and v not in (0, 1):
                raise ValueError(f"data must be 0 or 1 for Binary, got {data!r}")
        else:
            v = float(v)
        if self.kind.endswith("_bounded") and not (self.lower <= v <= self.upper):
            raise ValueError(f"data must lie in [lower, upper] = [{self.lower}, {self.upper}], got {v!r}")
        return v

    def get_params(self) -> dict:
        """The constructor arguments (``mechanism``, ``epsilon``, ``delta``, ``n_jobs`` and the mechanism's own)."""
        return {
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "n_jobs": self.n_jobs,
            **self.params,
        }

    def dp_tags(self) -> dict:
        """Declared properties for :mod:`htdp_verify.estimator_checks`: the input is one value (a utility vector
        for Exponential / PermuteAndFlip), the release a scalar; the audited neighbours are the inputs at distance
        ``sensitivity`` of :func:`~estimators.dpl.contract.scalar_pairs` (the relation of the claim, see the class
        docstring), and the extreme-input check, which generates datasets of records, does not apply to one value."""
        pairs = scalar_pairs(self.kind, self.sensitivity, self.lower, self.upper)
        first = np.asarray(pairs[0].d, dtype=float)
        tags = {
            "input_ndim": (1,) if self.kind == "utility" else (0, 1),
            "output": "scalar",
            "data": lambda rng: first,
            "neighbours": lambda relation: pairs,
        }
        if self.kind != "utility":
            tags["xfail"] = {"check_extreme_inputs": NOT_A_DATASET}
        return tags

    def _chunk_state(self, data, rs):
        cls = getattr(_dpl().mechanisms, self.mechanism)
        kw = dict(self._kwargs)
        if self.kind == "utility":
            kw["utility"] = list(data)
        return cls(**kw, random_state=rs)

    def _release(self, data, rs, mech):
        if self.kind == "utility":
            return mech.randomise()
        if self.kind == "binary":
            return int(mech.randomise(str(data)))
        return mech.randomise(data)


# ------------------------------------------------------------------------------------------------------


def dpl_mechanism(mechanism: str, *, epsilon: float, delta: float = 0.0, n_jobs: int = 1, **params) -> DPLMechanism:
    """``DPLMechanism(...)``: a diffprivlib mechanism as ``m(value, size, rng)``."""
    return DPLMechanism(mechanism, epsilon=epsilon, delta=delta, n_jobs=n_jobs, **params)
