"""The one diffprivlib adapter core: its seeding model, chunking and worker processes.

diffprivlib (IBM) draws its randomness from a ``numpy.random.RandomState`` built from ``random_state`` (or, when
that is ``None``, from an unseedable ``SystemRandom``). The auditor's mechanisms take a ``numpy.random.Generator``.
:class:`DPLAdapter` bridges the two with one seeding model, used by every diffprivlib mechanism in the project
(:func:`htdp_verify.privacy.from_diffprivlib` for arbitrary diffprivlib objects, and the named mechanism / tool /
model adapters built on it outside the engine):

* **one integer seed per release.** ``adapter(data, size, rng)`` draws ``seeds = release_seeds(rng, size)``
  (uniform on ``[0, 2**32)``) and release ``i`` runs diffprivlib's own code with ``random_state`` equal to
  ``RandomState(seeds[i])``. Releases are therefore independent (distinct MT19937 streams, one per release, not
  consecutive draws of a shared stream), a run is reproducible from the auditor's generator, and
  ``adapter.release(data, seeds[i])`` replays release ``i`` alone, exactly as a user calling diffprivlib with
  ``random_state=seeds[i]`` would get it;
* inside a chunk one ``RandomState`` is kept and re-seeded with ``.seed(seed)`` before each release: the same
  MT19937 state as ``RandomState(seed)`` but far cheaper to set up. Objects built once per chunk (a mechanism
  instance, a tool function) hold that same ``RandomState`` object, so re-seeding reaches them;
* ``n_jobs > 1`` splits the seeds into contiguous chunks run in joblib worker processes; the result is identical
  to the serial one;
* with ``strict = True`` diffprivlib's ``PrivacyLeakWarning`` / ``DiffprivlibCompatibilityWarning`` become errors
  (a configuration that falls back to reading bounds from the data is not the DP claim under test); accuracy-only
  warnings of scikit-learn / scipy are silenced.

Subclasses define ``_validate(data)``, ``_chunk_state(data, rs)`` (objects reused within a chunk) and
``_release(data, rs, state)`` (one release). diffprivlib is imported lazily: the engine does not need it unless a
diffprivlib adapter is used.

Reference: Holohan, Braghin, Mac Aonghusa, Levacher (2019), "Diffprivlib: the IBM Differential Privacy Library",
arXiv:1907.02444.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import check_int, check_rng

__all__ = ["SEED_BOUND", "release_seeds", "DPLAdapter"]

#: seeds are drawn uniformly from ``[0, SEED_BOUND)``; ``RandomState`` accepts integers below 2**32.
SEED_BOUND = 2**32


def release_seeds(rng: np.random.Generator, size: int) -> np.ndarray:
    """The integer seeds of ``size`` releases: ``rng.integers(0, 2**32, size, dtype=int64)``.

    Release ``i`` of any :class:`DPLAdapter` equals diffprivlib's output with ``random_state=int(seeds[i])``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The generator.
    size : int
        Number of releases.

    Returns
    -------
    numpy.ndarray
        The seeds (int64).
    """
    check_rng(rng)
    size = check_int("size", size, minimum=1)
    return rng.integers(0, SEED_BOUND, size=size, dtype=np.int64)


def _warning_filters(strict: bool):
    """Context: with ``strict``, diffprivlib's privacy-leak / compatibility warnings become errors; sklearn's and
    scipy's deprecation chatter and lbfgs convergence warnings are silenced (they concern accuracy, not privacy)."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    if strict:
        from diffprivlib.utils import DiffprivlibCompatibilityWarning, PrivacyLeakWarning
        from sklearn.exceptions import ConvergenceWarning

        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)  # LogisticRegression's lbfgs on tiny/degenerate data
        warnings.simplefilter("error", PrivacyLeakWarning)
        warnings.simplefilter("error", DiffprivlibCompatibilityWarning)
    return ctx


def _run_chunk(adapter, data, seeds):
    """Run releases for ``seeds`` (module-level so joblib can pickle it)."""
    ctx = _warning_filters(adapter.strict)
    try:
        rs = np.random.RandomState(0)
        state = adapter._chunk_state(data, rs)
        out = []
        for s in seeds:
            rs.seed(int(s))
            out.append(adapter._release(data, rs, state))
        return out
    finally:
        ctx.__exit__(None, None, None)


class DPLAdapter:
    """Seeding, chunking and joblib parallelism for diffprivlib releases (module docstring).

    ``adapter(data, size, rng)`` returns ``size`` independent releases on ``data``, shape ``(size, ...)`` (dtype
    ``output_dtype``), one integer seed per release drawn from ``rng``.

    Attributes
    ----------
    name
        short label (``"tools.mean"``).
    privacy
        the :class:`~htdp_verify.privacy.PrivacyGuarantee` diffprivlib claims for this configuration (or None).
    relation_note
        why that neighbouring relation (diffprivlib does not document one).
    n_jobs
        worker processes (``1``: serial).
    strict
        turn diffprivlib's privacy-leak warnings into errors.
    output_dtype
        dtype of the stacked releases.

    Parameters
    ----------
    n_jobs : int, default 1
        Worker processes (``1``: serial).
    """

    name: str = ""
    privacy = None
    relation_note: str = ""
    reference = "Holohan et al. 2019, Diffprivlib (arXiv:1907.02444), diffprivlib 0.6.6"
    strict: bool = True
    #: dtype of the stacked releases (``None``: whatever diffprivlib returns, e.g. integers for Geometric)
    output_dtype = float
    #: below this many releases per worker, parallelism does not pay for itself
    min_chunk = 64

    def __init__(self, n_jobs: int = 1):
        self.n_jobs = check_int("n_jobs", n_jobs, minimum=1)

    # -- the auditor contract --------------------------------------------------------------------------
    def __call__(self, data, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases on ``data``, shape ``(size, ...)``."""
        seeds = release_seeds(rng, size)
        return self.run_seeds(data, seeds)

    def run_seeds(self, data: Any, seeds: Sequence[int]) -> np.ndarray:
        """Releases for explicit integer ``seeds`` (``0 <= seed < 2**32``), in order.

        Parameters
        ----------
        data : array_like
            The input.
        seeds : sequence of int
            The seeds.

        Returns
        -------
        numpy.ndarray
            One release per seed, stacked.
        """
        data = self._validate(data)
        seeds = np.asarray(seeds)
        if seeds.ndim != 1 or seeds.size < 1 or seeds.dtype.kind not in "iu":
            raise ValueError(f"seeds must be a non-empty 1-d integer array, got {seeds!r}")
        if np.any(seeds < 0) or np.any(seeds >= SEED_BOUND):
            raise ValueError("seeds must lie in [0, 2**32)")
        n_workers = min(self.n_jobs, max(1, seeds.size // self.min_chunk))
        if n_workers == 1:
            out = _run_chunk(self, data, seeds)
        else:
            from joblib import Parallel, delayed

            chunks = np.array_split(seeds, n_workers)
            parts = Parallel(n_jobs=n_workers)(delayed(_run_chunk)(self, data, c) for c in chunks)
            out = [r for p in parts for r in p]
        try:
            return np.asarray(out, dtype=self.output_dtype)
        except ValueError as exc:  # ragged releases
            raise ValueError(
                f"{self.name or type(self).__name__} returned releases of differing shapes; every "
                "release must have one shape"
            ) from exc

    def release(self, data: Any, seed: int) -> np.ndarray:
        """One release with ``random_state=seed`` (what a direct diffprivlib call with that seed returns).

        Parameters
        ----------
        data : array_like
            The input.
        seed : int
            The seed.

        Returns
        -------
        numpy.ndarray or float
            The release.
        """
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < SEED_BOUND:
            raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")
        return self.run_seeds(data, np.array([seed], dtype=np.int64))[0]

    # -- to be provided -----------------------------------------------------------------------------
    def _validate(self, data):
        return data

    def _chunk_state(self, data, rs):
        return None

    def _release(self, data, rs, state):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {getattr(self, 'privacy', '') or ''}>"
