"""Running the benchmark: every catalogue mechanism audited by the public auditor, and by its white-box plan.

Two columns per mechanism:

* **auto** (the headline): ``htdp_verify.privacy.audit(mechanism, claim, pairs=<all the catalogue's pairs>,
  n_samples=n, attacks="auto")`` with the auditor's default split (pair search ``n/4``, selection ``n/8``,
  certification ``n`` releases per side) and one budget for every row (:data:`AUTO_FULL` / :data:`AUTO_QUICK`
  releases per side in all).  This is exactly what a user of :func:`~htdp_verify.privacy.audit` gets.
* **white-box** (labelled as such): the same ``audit()`` with the row's :class:`~.plans.BenchPlan` (its attack
  families, post-processings, budget and split).

:func:`run_bench` writes ``bench.md`` / ``.csv`` / ``.png`` (and with ``seeds > 1`` the per-seed tables).
"""

from __future__ import annotations

import math
import re
import time
import zlib

import numpy as np

from htdp_verify._validate import check_int, check_rng, is_int_in
from htdp_verify.privacy import audit
from htdp_verify.privacy.plan import SEARCH_DIVISOR, SELECT_DIVISOR, default_stage_sizes
from htdp_verify.runlog import RunLog, read_runlog

from .catalogue import MECHANISMS, get_mechanism
from .mechanism import BenchMechanism
from .plans import bench_plan

__all__ = ["AUTO_FULL", "AUTO_QUICK", "audit_mechanism", "audit_white_box", "auto_sizes", "combine_bench", "run_bench"]

AUTO_FULL = 20_000_000  # releases per side per row, search + selection + certification (DP-Sniper used 2·10⁸)
AUTO_QUICK = 1_000_000


def auto_sizes(n_per_side: int, n_pairs: int) -> dict:
    """``audit()``'s default split of a per-side budget: certification ``n``, selection and (with several pairs) pair
    search as :func:`htdp_verify.privacy.plan.default_stage_sizes` gives them for ``n`` (``max(2000, n // 8)`` and
    ``max(500 * n_pairs, n // 4)``, the defaults of ``audit``); ``n`` is the largest that fits."""
    n_per_side = check_int("n_per_side", n_per_side, minimum=1000)
    share = 1 + 1 / SELECT_DIVISOR + (1 / SEARCH_DIVISOR if n_pairs > 1 else 0.0)
    n = int(n_per_side / share)
    while n > 10 and n + sum(default_stage_sizes(n, n_pairs)) > n_per_side:
        n = int(n * 0.98)
    n_select, n_search = default_stage_sizes(n, n_pairs)
    return {"n_samples": n, "n_select": n_select, "n_search": n_search}


def _facts(m: BenchMechanism, res, column: str, white_box: str = "") -> dict:
    return {
        "mechanism": m.name,
        "column": column,
        "claimed_epsilon": m.claimed_epsilon,
        "true_epsilon": m.true_epsilon,
        "pair_epsilon": m.pair_epsilon,
        "relation": m.relation,
        "expected_verdict": m.expected_verdict,
        "matches_ground_truth": (res.verdict == "violated") == m.buggy,
        "dpsniper_lr": m.dpsniper_lr,
        "dpsniper_mlp": m.dpsniper_mlp,
        "statdp_runs": list(m.statdp_runs) if m.statdp_runs else None,
        "samples_per_side": res.n_samples // 2,
        "white_box": white_box,
        "attacks": res.details.get("selection", {}).get("attacks"),
        "seconds": res.seconds,
    }


def audit_mechanism(
    name: str, *, n_per_side: int, rng: np.random.Generator, alpha: float = 0.05, check_name: str | None = None
):
    """Audit one catalogue mechanism with the public ``audit(..., attacks="auto")`` over all its pairs, at most
    ``n_per_side`` releases per side in total (split as :func:`auto_sizes`).  Returns the ``AuditResult`` with
    the benchmark's facts in ``details["benchmark"]``."""
    m = get_mechanism(name)
    check_rng(rng)
    sizes = auto_sizes(n_per_side, len(m.pairs))
    res = audit(
        m,
        m.claim(),
        pairs=list(m.pairs),
        n_samples=sizes["n_samples"],
        alpha=alpha,
        attacks="auto",
        rng=rng,
        name=check_name or f"benchmark.{name}",
    )
    res.details["benchmark"] = _facts(m, res, "auto")
    return res


def audit_white_box(
    name: str, *, n_per_side: int, rng: np.random.Generator, alpha: float = 0.05, check_name: str | None = None
):
    """Audit one catalogue mechanism with its white-box :class:`~.plans.BenchPlan` (attack families, budget
    split, search share) through the same public ``audit()``; at most ``n_per_side`` releases per side."""
    m = get_mechanism(name)
    plan = bench_plan(name)
    n_per_side = check_int("n_per_side", n_per_side, minimum=1000)
    check_rng(rng)
    n_pairs = len(m.pairs)
    n_search = 0
    if n_pairs > 1:  # the plan's share, raised to its minimum but never above 40 % of the budget
        s = plan.search_share
        n_search = int(min(max(s * n_per_side, plan.search_min), max(s, 0.4) * n_per_side))
        n_search = max(n_search, 500 * n_pairs)
    n_select = max(2000, int(plan.select_share * n_per_side))
    n_cert = max(1000, n_per_side - n_search - n_select)
    res = audit(
        m,
        m.claim(),
        pairs=list(m.pairs),
        n_samples=n_cert,
        n_select=n_select,
        n_search=n_search if n_pairs > 1 else None,
        alpha=alpha,
        attacks=plan.make_attacks(),
        rng=rng,
        name=check_name or f"benchmark.{name}[white-box]",
    )
    res.details["benchmark"] = _facts(m, res, "white-box", plan.white_box or "per-mechanism plan")
    return res


def _fmt(x, nd=4):
    import math

    if x is None:
        return "—"
    if isinstance(x, (list, tuple)):
        return " / ".join(_fmt(v, nd) for v in x)
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞"
    return f"{x:.{nd}g}"


def _bench_one(name, column, n, seed, alpha):
    """Worker: audit ``name`` in ``column`` with its own generator (SeedSequence of the run seed, the name and
    the column), so every row and column reproduces alone."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(name.encode()), zlib.crc32(column.encode())]))
    fn = audit_mechanism if column == "auto" else audit_white_box
    try:
        return fn(name, n_per_side=n, rng=rng, alpha=alpha)
    except Exception as exc:  # a failing mechanism must not sink the table
        from htdp_verify.results import CheckResult

        return CheckResult(
            f"benchmark.{name}",
            "error",
            "epsilon_lb",
            summary=f"{type(exc).__name__}: {exc}",
            details={"error": repr(exc), "benchmark": {"mechanism": name, "column": column}},
        )


def _job_key(name: str, column: str, seed: int) -> str:
    return f"{name} [{column}] seed {seed}"


def _finished(out_dir, meta: dict, jobs: list) -> dict:
    """The ``jobs`` (``(name, column, seed)``) an interrupted run in ``out_dir`` finished, ``{job: AuditResult}``;
    its stored settings must equal ``meta``."""
    content = _bench_stream(out_dir)
    stored = content.meta
    for k, v in meta.items():
        if stored.get(k) != v:
            raise ValueError(f"resume: {k} is {v!r} here but {stored.get(k)!r} in the run in {out_dir}")
    keys = {_job_key(*j): j for j in jobs}
    return {keys[k]: _audit_result(rs) for k, rs in content.done.items() if k in keys}


MAX_SEEDS = 1000  # run seeds one bench folder may declare (a file asking for 10⁶ started 2·10⁶ audits)


def _bench_stream(out_dir):
    """The results stream of the bench run in ``out_dir``; ``ValueError`` when the benchmark did not write it, when
    its stored settings are not ones ``run_bench`` accepts, or when a record contradicts itself (a results file may
    come from someone else)."""
    content = read_runlog(out_dir)
    meta = content.meta
    where = f"{out_dir}/results.jsonl"
    if meta.get("bench") is not True:
        raise ValueError(f"{where} was not written by the benchmark")

    def bad(key, want):
        raise ValueError(f"{where}: the stored {key} {meta.get(key)!r} is not {want}")

    seed, seeds = meta.get("seed"), meta.get("seeds", 1)
    if not is_int_in(seed, 0, 2**63 - 1):
        bad("seed", "an integer in [0, 2**63)")
    if not is_int_in(seeds, 1, MAX_SEEDS):
        bad("seeds", f"an integer in [1, {MAX_SEEDS}]")
    for key in ("quick", "white_box"):
        if not isinstance(meta.get(key, False), bool):
            bad(key, "true or false")
    nps = meta.get("n_per_side")
    if nps is not None and not is_int_in(nps, 1000):
        bad("n_per_side", "null or an integer >= 1000")
    a = meta.get("alpha", 0.05)
    if isinstance(a, bool) or not isinstance(a, (int, float)) or not 0 < a < 1:
        bad("alpha", "a number in (0, 1)")
    names = meta.get("names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n in MECHANISMS for n in names):
        bad("names", "a list of catalogue mechanisms")
    first = int(meta["seed"])
    for key, results in content.done.items():
        m = re.fullmatch(r"(.+) \[(auto|white-box)\] seed (\d+)", key)
        if m is None or m.group(1) not in names or not first <= int(m.group(3)) < first + seeds:
            raise ValueError(f"{where}: {key!r} is not a row, column and seed of this run")
        if content.seeds.get(key) != int(m.group(3)):
            raise ValueError(f"{where}: {key!r} was recorded with seed {content.seeds.get(key)!r}")
        labels = {r.details.get("benchmark", {}).get("mechanism", m.group(1)) for r in results}
        if labels != {m.group(1)}:
            raise ValueError(f"{where}: {key!r} holds the audit of {sorted(labels)}")
        col = m.group(2)
        cap = _record_cap(meta, m.group(1), col)
        for r in results:
            n_rec = getattr(r, "n_samples", None)
            if n_rec is not None and not is_int_in(n_rec, 0, 2 * cap + 1):
                raise ValueError(
                    f"{where}: {key!r} records {n_rec!r} releases, more than this run's budget allows "
                    f"(at most {cap} per side for the {col} column)"
                )
            n_cert = (r.details.get("samples") or {}).get("n_certify_per_side")
            if n_cert is not None and not is_int_in(n_cert, 1, max(n_rec or 0, 2) // 2):
                raise ValueError(
                    f"{where}: {key!r} records n_certify_per_side {n_cert!r}; it must be an integer in "
                    f"[1, the record's releases per side = {(n_rec or 0) // 2}]"
                )
            claim = getattr(r.claim, "epsilon", None)
            if r.verdict in ("consistent", "violated") and claim is not None and math.isfinite(r.estimate):
                if (r.verdict == "violated") != (r.estimate > claim):
                    raise ValueError(
                        f"{where}: {key!r} says {r.verdict} with ε_lb {r.estimate:g} against the claim {claim:g}; "
                        "an audit is violated exactly when its bound exceeds the claim"
                    )
    return content


def _record_cap(meta: dict, name: str, column: str) -> int:
    """Most releases per side a stored record of ``name`` may report: twice the run's budget for the row plus
    20 000 (Poissonised sizes and the search's per-pair minimum can exceed a small budget; 10¹² cannot)."""
    if column == "auto":
        b = meta.get("n_per_side") or (AUTO_QUICK if meta.get("quick") else AUTO_FULL)
    else:
        p = bench_plan(name)
        b = p.n_quick if meta.get("quick") else p.n_full
    return 2 * int(b) + 20_000


def _audit_result(results: list):
    """The ``AuditResult`` of one streamed bench audit (its single result, read back as a ``CheckResult``)."""
    from htdp_verify.privacy.result import AuditResult

    return AuditResult.from_dict(results[0].to_dict())


def run_bench(
    *,
    quick: bool,
    out_dir,
    seed: int,
    progress: bool = True,
    names=None,
    n_jobs: int = 2,
    alpha: float = 0.05,
    seeds: int = 1,
    white_box: bool = True,
    n_per_side: int | None = None,
    resume: bool = False,
) -> list:
    """Audit every benchmark mechanism at its claimed ε and write ``bench.md``, ``bench.csv`` and ``bench.png``.

    Parameters
    ----------
    quick: :data:`AUTO_QUICK` releases per side per row for the auto column (the plans' ``n_quick`` for the
        white-box column) instead of :data:`AUTO_FULL` (``n_full``).
    out_dir: folder for the tables and figures (created).
    seed: run seed; row ``name`` of column ``c`` gets ``SeedSequence([seed, crc32(name), crc32(c)])``.
    progress: print one line per audit.
    names: subset of mechanisms (default: all); n_jobs: worker processes (default 2); alpha: per-audit error.
    seeds: repeat with run seeds ``seed, seed + 1, …``; ``bench_seeds.md`` / ``.csv`` / ``.png`` summarise the
        auto column over the seeds and ``bench_runs.csv`` lists every run.
    white_box: also run the white-box column (default ``True``).
    n_per_side: the auto column's budget per row instead of :data:`AUTO_QUICK` / :data:`AUTO_FULL` (smoke tests).
    resume: continue the interrupted run in ``out_dir``: every finished audit is streamed to
        ``out_dir/results.jsonl`` (:mod:`htdp_verify.runlog`, one line per row, column and seed) as it finishes;
        with ``resume`` those are read back, not run again, and the settings above must equal the stored ones
        (``ValueError`` naming the first that differs).  A resumed run gives the results of an uninterrupted one.

    Returns the auto column's ``AuditResult`` of every mechanism for the first seed, in catalogue order, each with
    its white-box result's summary in ``details["white_box"]``.
    """
    from pathlib import Path

    from .tables import write_bench_tables, write_seed_tables

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    seed = check_int("seed", seed)
    n_jobs = check_int("n_jobs", n_jobs, minimum=1)
    seeds = check_int("seeds", seeds, minimum=1)
    names = list(MECHANISMS) if names is None else [get_mechanism(n).name for n in names]
    columns = ["auto"] + (["white-box"] if white_box else [])

    if n_per_side is not None:
        n_per_side = check_int("n_per_side", n_per_side, minimum=1000)

    def budget(n, c):
        if c == "auto":
            return n_per_side or (AUTO_QUICK if quick else AUTO_FULL)
        p = bench_plan(n)
        return p.n_quick if quick else p.n_full

    jobs = [(n, c, seed + i) for i in range(seeds) for n in names for c in (columns if i == 0 else ["auto"])]
    jobs.sort(key=lambda j: -budget(j[0], j[1]))  # longest first for load balance
    meta = {
        "bench": True,
        "quick": bool(quick),
        "seed": seed,
        "seeds": seeds,
        "names": names,
        "white_box": bool(white_box),
        "n_per_side": n_per_side,
        "alpha": float(alpha),
    }
    results = _finished(out_dir, meta, jobs) if resume else {}
    resumed = len(results)
    jobs = [j for j in jobs if j not in results]
    log = RunLog(out_dir, resume=True) if resume else RunLog(out_dir, meta)
    t0 = time.perf_counter()
    if n_jobs > 1 and len(jobs) > 1:
        from joblib import Parallel, delayed

        it = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(lambda n, c, s: (n, c, s, _bench_one(n, c, budget(n, c), s, alpha)))(n, c, s) for n, c, s in jobs
        )
    else:
        it = ((n, c, s, _bench_one(n, c, budget(n, c), s, alpha)) for n, c, s in jobs)
    for n, c, s, r in it:
        results[(n, c, s)] = r
        log.append(_job_key(n, c, s), s, [r])
        if progress:
            tag = f" seed {s}" if seeds > 1 else ""
            print(
                f"[{time.perf_counter() - t0:7.1f}s] {n:26s} {c:9s}{tag} {r.verdict:12s} "
                f"eps_lb={_fmt(r.estimate)}  ({r.seconds:.1f}s)",
                flush=True,
            )
    log.close()
    wall = time.perf_counter() - t0
    out = [results[(n, "auto", seed)] for n in names]
    for n, r in zip(names, out):
        wb = results.get((n, "white-box", seed))
        if wb is not None:
            r.details["white_box"] = {
                "verdict": wb.verdict,
                "epsilon_lb": float(wb.estimate),
                "samples_per_side": wb.n_samples // 2,
                "event": wb.details.get("event", {}).get("event", ""),
                "attack": wb.details.get("event", {}).get("attack", ""),
                "pair": wb.details.get("pair", {}).get("label", ""),
                "seconds": wb.seconds,
                "plan": wb.details.get("benchmark", {}).get("white_box", ""),
            }
    write_bench_tables(out, out_dir, quick=quick, seed=seed, wall=wall, n_jobs=n_jobs, resumed=resumed)
    if seeds > 1:
        per_seed = {seed + i: [results[(n, "auto", seed + i)] for n in names] for i in range(seeds)}
        write_seed_tables(per_seed, out_dir, quick=quick, wall=wall, n_jobs=n_jobs, resumed=resumed)
    return out


_SAME_IN_EVERY_RUN = ("quick", "names", "n_per_side", "alpha")


def combine_bench(run_dirs, out_dir) -> dict:
    """Summarise the auto column of several finished bench runs over their run seeds.

    Each run (``htdp-verify bench --seed S --out DIR``, possibly resumed) streamed its audits to
    ``DIR/results.jsonl``.  Row ``name`` at run seed ``s`` draws from ``SeedSequence([s, crc32(name), ...])`` whatever
    run it belongs to, so runs made one seed at a time combine into exactly the tables that one run with ``--seeds K``
    writes: ``bench_seeds.md`` / ``.csv`` / ``.png`` and ``bench_runs.csv`` in ``out_dir``.

    Parameters
    ----------
    run_dirs: the runs' output folders (at least one).
    out_dir: folder for the combined tables (created).

    Raises ``ValueError`` (naming the folder) when a folder holds no bench run, when the runs differ in their
    profile, mechanisms, budget or α, when a run is unfinished (its missing rows are named), or when two runs hold
    the same seed.

    Returns ``{seed: [AuditResult in catalogue order]}``.
    """
    from pathlib import Path

    from .tables import write_seed_tables

    run_dirs = [Path(d) for d in run_dirs]
    if not run_dirs:
        raise ValueError("run_dirs: give at least one bench output folder")
    per_seed: dict = {}
    first: dict | None = None
    for d in run_dirs:
        content = _bench_stream(d)
        meta = content.meta
        if first is None:
            first = meta
        for k in _SAME_IN_EVERY_RUN:
            if meta.get(k) != first.get(k):
                raise ValueError(
                    f"{d}: {k} is {meta.get(k)!r} but {first.get(k)!r} in {run_dirs[0]}; only runs with the same "
                    f"{', '.join(_SAME_IN_EVERY_RUN)} combine"
                )
        names = list(meta["names"])
        for s in range(int(meta["seed"]), int(meta["seed"]) + int(meta.get("seeds", 1))):
            if s in per_seed:
                raise ValueError(f"{d}: run seed {s} is also in another of the folders given")
            missing = [n for n in names if _job_key(n, "auto", s) not in content.done]
            if missing:
                raise ValueError(
                    f"{d}: seed {s} is unfinished ({len(missing)} of {len(names)} rows missing, e.g. {missing[0]}); "
                    f"finish it with 'htdp-verify bench --resume {d}'"
                )
            per_seed[s] = [_audit_result(content.done[_job_key(n, "auto", s)]) for n in names]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    assert first is not None
    write_seed_tables(per_seed, out_dir, quick=bool(first["quick"]), wall=None, n_jobs=None, sources=run_dirs)
    return per_seed
