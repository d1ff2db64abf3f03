"""Replications and parameter sweeps with reproducible seeding.

One integer ``seed`` determines a whole run.  Every (grid cell, replication) draws from its own
``numpy.random.Generator`` built from ``SeedSequence(seed, spawn_key=(cell, rep))`` – the same child that
``SeedSequence(seed).spawn(n_cells)[cell].spawn(n_reps)[rep]`` would give – so the numbers do not depend on
the backend (serial, local processes, a Dask cluster), on the number of workers, or on how replications are
chunked.  Any single replication can be re-run alone with :meth:`MonteCarloResult.rng_for`.

Vectorised estimators (``vectorised=True``) are called once per chunk of replications as
``fn(**params, n_reps=m, rng=...)`` and return all ``m`` replications at once; chunk ``j`` of cell ``c`` uses
``SeedSequence(seed, spawn_key=(c, j))``.  Their numbers depend on ``chunk_size`` (fixed by the caller; by
default the whole cell is one chunk) but never on the backend.

Results come back as a tidy ``pandas.DataFrame`` (one row per replication: the grid parameters, ``cell``,
``rep``, ``seed``, ``spawn_key`` and the outputs), wrapped in :class:`MonteCarloResult`, which saves to and
loads from CSV (+ a JSON sidecar with the run's metadata) or a single JSON file.

Layout: :mod:`.seeding` (seed sequences, the per-task worker), :mod:`.backends` (serial / processes / dask),
:mod:`.results` (``MonteCarloResult``, ``load_results``), :mod:`.runs` (``replicate``, ``sweep``); every name is
importable from here.
"""

from __future__ import annotations

from .backends import BACKENDS
from .results import MonteCarloResult, load_results
from .runs import replicate, sweep
from .seeding import child_seed_sequence

__all__ = ["BACKENDS", "MonteCarloResult", "replicate", "sweep", "load_results", "child_seed_sequence"]
