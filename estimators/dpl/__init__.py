"""diffprivlib (IBM, 0.6.6) as dataset-level mechanisms for the auditor, and two estimator-style baselines.

Every adapter here is a callable ``m(data, size, rng) -> ndarray (size, ...)`` that runs diffprivlib's *own*
code path ``size`` times on the same ``data``:

* release ``i`` is seeded with the integer ``seeds[i]``, where ``seeds = release_seeds(rng, size)`` (so a run is
  reproducible from ``rng``, and ``m.release(data, seeds[i])`` replays release ``i`` alone with
  ``random_state=seeds[i]``, exactly as a user calling diffprivlib with that integer would get);
* tools and models get a fresh, private ``BudgetAccountant()`` per release, so nothing is spent on (or leaks
  through) diffprivlib's global default accountant;
* bounds / ``range`` / ``data_norm`` / ``classes`` are always explicit (the adapters refuse to run without them),
  and diffprivlib's ``PrivacyLeakWarning`` / ``DiffprivlibCompatibilityWarning`` are turned into errors, so the
  claim under test is the library's DP claim and not its data-dependent fall-back;
* ``n_jobs > 1`` splits the seeds into contiguous chunks run in joblib (loky) worker processes; the result is
  identical to the serial one.

The seeding model, chunking and worker processes are the engine's one diffprivlib adapter core,
:class:`htdp_verify.privacy.dpl_adapter.DPLAdapter` (also behind :func:`htdp_verify.privacy.from_diffprivlib`);
this module adds the named configurations and their validation. Inside a chunk the core keeps one
``numpy.random.RandomState`` and calls ``.seed(seed)`` before each release, the same MT19937 state as
``RandomState(seed)``; ``tests/privacy/test_dpl_adapter.py`` checks the equality against direct diffprivlib calls with
``random_state=seed`` for every adapter.

Neighbouring relations.  diffprivlib's documentation states no neighbouring relation; each adapter declares the
one its sensitivity calibration is valid for (``PrivacyGuarantee.neighbours``), with the reason in
``relation_note``:

* ``"replace"`` (bounded DP, n public) for ``mean``/``var``/``std``/``sum``/``count_nonzero``/``quantile``/
  ``median``/``percentile`` (sensitivities ``(U-L)/n``, ``(U-L)^2 (n-1)/n^2``, ``U-L``, rank utility with
  ``n`` in it, and truncation ranges ``[nL, nU]`` that reveal ``n``), and for every model (all of them call these
  tools or use the same ``n``-dependent calibration);
* ``"add_remove"`` for ``histogram``/``histogramdd`` (per-bin sensitivity 1 is the add/remove sensitivity of a
  histogram; under replace-one it is 2, i.e. the histogram would be 2ε-DP);
* scalar mechanisms: the "dataset" is the single value passed to ``randomise``, and neighbours are values at
  distance ``<= sensitivity`` (inside ``[lower, upper]`` where the mechanism has a domain); recorded as
  ``"replace"`` (one record, replaced).

Reference: Holohan, Braghin, Mac Aonghusa, Levacher (2019), "Diffprivlib: the IBM Differential Privacy Library",
arXiv:1907.02444; spec ``../shared/specs/anchors_diffprivlib.md``.

Layout (everything is re-exported here): :mod:`.tables` (supported names, relation notes, bounds validator),
:mod:`.mechanisms`, :mod:`.tools` and :mod:`.models` (one adapter class and its factory each), :mod:`.baselines`
(``DPLMean``, ``DPLMedian``).
"""

from __future__ import annotations

from htdp_verify.privacy.dpl_adapter import SEED_BOUND, DPLAdapter, release_seeds

from .baselines import DPLMean, DPLMedian
from .mechanisms import DPLMechanism, dpl_mechanism
from .models import DPLModel, _probe_grid, dpl_model  # noqa: F401 - _probe_grid re-exported for tests
from .tables import MECHANISMS, MODELS, TOOLS
from .tools import DPLTool, dpl_tool

__all__ = [
    "release_seeds",
    "DPLAdapter",
    "DPLMechanism",
    "DPLTool",
    "DPLModel",
    "dpl_mechanism",
    "dpl_tool",
    "dpl_model",
    "DPLMean",
    "DPLMedian",
    "MECHANISMS",
    "TOOLS",
    "MODELS",
    "SEED_BOUND",
]
