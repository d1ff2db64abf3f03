"""Base class for estimators under test (contract in ARCHITECTURE.md, "Estimators").

An estimator fixes its hyper-parameters at construction, declares ``privacy`` (a ``PrivacyGuarantee`` or
``None`` for non-private references), and offers ``__call__(data, *, rng)`` (one release) and
``sample(data, size, *, rng)`` (``size`` independent releases on the same data, shape ``(size, ...)``).
The default ``sample`` loops over ``__call__``; subclasses override it with one vectorised draw.
"""

from __future__ import annotations

import numpy as np

from htdp_verify._validate import check_int, check_rng
from htdp_verify.privacy import PrivacyGuarantee


class Estimator:
    privacy: PrivacyGuarantee | None = None
    reference: str = ""

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        return np.stack([np.asarray(self(data, rng=rng)) for _ in range(size)])

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"


class NoisyStatistic(Estimator):
    """ "Deterministic statistic + independent noise": ``sample`` computes ``statistic(data)`` once and adds ``size``
    noise draws of ``noise(n, d, shape, rng)`` (n records, d coordinates) in one vectorised call."""

    def statistic(self, data) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def noise(self, n: int, d: int, shape: tuple, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        x = as_data(data)
        stat = self.statistic(x)
        d = 1 if x.ndim == 1 else x.shape[1]
        return stat + self.noise(x.shape[0], d, (size,) + np.shape(stat), rng)

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng=rng)[0]


class DeterministicEstimator(Estimator):
    """A non-private reference: ``statistic(data)`` with no noise; ``sample`` repeats it ``size`` times."""

    privacy = None

    def statistic(self, data) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, data, *, rng: np.random.Generator) -> np.ndarray:
        check_rng(rng)
        return self.statistic(data)

    def sample(self, data, size: int, *, rng: np.random.Generator) -> np.ndarray:
        size = check_int("size", size, minimum=1)
        check_rng(rng)
        stat = np.asarray(self.statistic(data))
        return np.broadcast_to(stat, (size,) + stat.shape).copy()


def as_data(data, name: str = "data", *, ndim: tuple = (1, 2)) -> np.ndarray:
    """Validate a dataset: a finite float array with ``ndim`` in the accepted set; never repaired silently."""
    arr = np.asarray(data, dtype=float)
    if arr.ndim not in ndim:
        raise ValueError(f"{name} must have ndim in {ndim}, got shape {arr.shape}")
    if arr.shape[0] < 1:
        raise ValueError(f"{name} must contain at least one row")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (found NaN or inf); clean it explicitly before estimation")
    return arr


def check_choice(name: str, value, choices):
    """``value`` if it is one of ``choices``; otherwise a ValueError naming the parameter and the accepted values."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value
