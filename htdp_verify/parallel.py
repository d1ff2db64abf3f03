"""Run registered checks in worker processes or on a Dask cluster, with the results of a serial run.

``htdp-verify run --workers N`` (local processes), ``--workers N --backend dask`` (a Dask ``LocalCluster`` of N
single-threaded worker processes) and ``--scheduler ADDRESS`` (an existing Dask cluster) all go through
:func:`iter_checks`, which yields each check's results as it finishes.  Why the results equal a serial run's:

* a check's generator is seeded from the run seed and the check's *name* (:func:`~htdp_verify.registry.derive_seed`),
  never from its position or from the worker that runs it, and checks share no random state;
* every worker runs the very function the parent registered (sent with cloudpickle: by reference when its module
  can be imported, by value otherwise, e.g. a closure registered in a loop or a check defined in ``__main__``);
* BLAS and OpenMP pools are limited to one thread per worker (``threadpoolctl`` and the usual environment
  variables), so N workers use N cores and not N × cores, and floating-point reductions run the same code path;
* matplotlib uses the non-interactive ``Agg`` backend in workers (no display, no GUI event loop inherited);
* joblib runs ``Parallel`` calls inside a worker one item after another (its ``sequential`` backend): a check asking
  for ``n_jobs=2`` would otherwise start a pool of processes in each worker, and that pool outlives the check for
  300 s (joblib's idle timeout); the engine's joblib users seed each item, so the results do not depend on it.

How the time is spent: the checks are submitted longest first when the costs of an earlier run are known
(:func:`submission_order`; ``htdp-verify run`` reads them from the previous run in ``--out``), so no long check is
left to run alone at the end; checks that declare a shared in-process cache
(:func:`~htdp_verify.schedule.shares_cache`, e.g. several claims tested on one Monte Carlo sweep) run one after the
other in one worker, which fills the cache once instead of once per worker (:mod:`~htdp_verify.schedule`); each
check's worker pid, start, end and CPU seconds are recorded in the run log (:func:`task_timing`), which shows idle
workers; at the end the workers get ``EXIT_GRACE_SECONDS`` to exit and are then terminated (every result is in by
then), so a process a check left behind cannot hold the run.

Files a check writes (its figures) go to a private temporary folder of the worker; they come back to the parent as
bytes with the results and are written into the report folder under the same relative names, so figures reach the
report whether the worker shares the parent's disk or runs on another machine.  Nothing is pickled to disk: results
travel in memory (the IPC of :mod:`multiprocessing` or Dask) and the run log stays JSON (:mod:`~htdp_verify.runlog`).

Wall-clock ``seconds`` of a result differ between runs, as they do between two serial runs; nothing else does.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import multiprocessing
import os
import pickle
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .registry import Check, derive_seed, error_result, execute_check
from .schedule import check_units, submission_order, unit_order

__all__ = [
    "BACKENDS",
    "MAX_WORKERS_PER_CPU",
    "TaskClock",
    "check_workers",
    "iter_checks",
    "max_workers",
    "submission_order",
    "task_timing",
]

#: where ``--workers`` checks run: ``"processes"`` (a local process pool) or ``"dask"`` (a Dask cluster)
BACKENDS = ("processes", "dask")
#: cap of ``workers``: this many per CPU available to the process (more only adds memory and context switches)
MAX_WORKERS_PER_CPU = 4
#: thread-count variables of BLAS / OpenMP libraries set to 1 in every worker
THREAD_ENV = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
POLL_SECONDS = 1.0  # how often the status callback is refreshed while checks run
#: seconds the workers of a finished run get to exit before they are terminated (every result is in by then)
EXIT_GRACE_SECONDS = 10.0


def _cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def max_workers() -> int:
    """The largest accepted ``workers``: :data:`MAX_WORKERS_PER_CPU` per CPU this process may use.

    Returns
    -------
    int
        ``MAX_WORKERS_PER_CPU`` times the number of CPUs in this process's affinity mask.
    """
    return MAX_WORKERS_PER_CPU * _cpus()


def check_workers(workers: int) -> int:
    """``workers`` as an int; ``ValueError`` naming it unless it is an integer in ``[1, max_workers()]``.

    Parameters
    ----------
    workers : int
        The requested number of workers (a ``bool`` is refused).

    Returns
    -------
    int
        ``workers`` unchanged.
    """
    cap = max_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= cap:
        raise ValueError(
            f"workers must be an integer in [1, {cap}] ({MAX_WORKERS_PER_CPU} per CPU of the "
            f"{_cpus()} available), got {workers!r}"
        )
    return workers


# ------------------------------------------------------------------------------------------------- timing
class TaskClock:
    """Wall-clock and CPU time of one check in the process that runs it (see :func:`task_timing`).

    ``TaskClock()`` starts it; ``stop()`` returns the :func:`task_timing` record.  Child processes the check uses
    (a joblib pool) are counted: those that ended and were waited for, and, on Linux, those still alive."""

    def __init__(self):
        self.started, self._cpu, self._kids = time.time(), time.process_time(), _children_cpu()

    def stop(self) -> dict:
        return task_timing(self.started, time.time(), time.process_time() - self._cpu, _children_cpu() - self._kids)


def _children_cpu() -> float:
    """CPU seconds of this process's child processes: finished (waited-for) ones plus, where ``/proc`` lists them,
    the live descendants (a joblib pool kept alive between calls)."""
    total = 0.0
    try:
        import resource

        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        total = ru.ru_utime + ru.ru_stime
    except (ImportError, OSError):  # pragma: no cover - not on Windows
        return total
    return total + _live_descendants_cpu(os.getpid())


def _live_descendants_cpu(pid: int, depth: int = 0) -> float:
    """CPU seconds (user + system) of the live descendants of ``pid`` read from ``/proc`` (0 where it is absent)."""
    if depth > 4:
        return 0.0
    total = 0.0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for tid in tasks:
        try:
            kids = Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
        except OSError:
            continue
        for k in kids:
            try:
                stat = Path(f"/proc/{k}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            total += (int(fields[11]) + int(fields[12])) / tick + _live_descendants_cpu(int(k), depth + 1)
    return total


def task_timing(started: float, finished: float, cpu: float, children_cpu: float = 0.0) -> dict:
    """The timing record of one check, written into the run log (``results.jsonl``) next to its results.

    Parameters
    ----------
    started, finished : float
        Wall-clock times (seconds since the epoch) at which the process running the check began and ended it.
    cpu : float
        CPU seconds of that process (all its threads) in between.
    children_cpu : float, default 0.0
        CPU seconds of child processes it started and waited for in between (a joblib pool that stays alive
        is not counted).

    Returns
    -------
    dict
        ``{"worker": pid, "started", "finished", "cpu_seconds", "children_cpu_seconds"}``; the results do not
        depend on it (it is not part of ``results.json``).
    """
    return {
        "worker": os.getpid(),
        "started": round(started, 3),
        "finished": round(finished, 3),
        "cpu_seconds": round(cpu, 3),
        "children_cpu_seconds": round(max(0.0, children_cpu), 3),
    }


# ------------------------------------------------------------------------------------------------- worker side
def _limit_threads() -> None:
    """One BLAS/OpenMP thread and the Agg matplotlib backend in this (worker) process."""
    for k in THREAD_ENV:
        os.environ[k] = "1"
    os.environ["MPLBACKEND"] = "Agg"
    if "matplotlib" in sys.modules:
        import matplotlib

        matplotlib.use("Agg")
    try:
        from threadpoolctl import threadpool_limits

        global _LIMITS
        _LIMITS = threadpool_limits(limits=1)  # kept alive: the limit holds for the worker's life
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        pass


_LIMITS = None


def _no_nested_pools():
    """A context in which joblib runs ``Parallel`` calls one after another in this process (its ``sequential``
    backend), so that a check asking for ``n_jobs`` > 1 inside a worker does not start a pool of its own: N workers
    then use N cores, without the start-up of a process pool per worker.  Results do not change for checks whose
    outcome does not depend on how the work is split (the engine's joblib users seed each item, not each chunk)."""
    try:
        from joblib import parallel_config
    except ImportError:  # pragma: no cover - joblib comes with scikit-learn
        import contextlib

        return contextlib.nullcontext()
    return parallel_config(backend="sequential")


def _init_process_worker() -> None:
    """Initializer of a pool worker: Ctrl-C is the parent's to handle (it stops the workers), one thread each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _limit_threads()


@dataclass(frozen=True)
class _Task:
    """What a worker needs to run one check: the check without its function, the function pickled (or ``None``:
    look it up by name in the worker's registry), and the run's profile and seed."""

    check: Check
    func: bytes | None
    profile: str
    seed: int


def _run_task(task: _Task):
    """Worker entry: run the check in a private folder; return ``(seed, results, files, timing)`` with ``files``
    the bytes of every file the check wrote, keyed by its path relative to the folder (POSIX separators), and
    ``timing`` the :func:`task_timing` of the whole task (unpickling the function included)."""
    clock = TaskClock()
    if os.environ.get("MPLBACKEND") != "Agg" or os.environ.get("OMP_NUM_THREADS") != "1":
        _limit_threads()  # a Dask worker (the process pool's initializer already did this)
    if task.func is not None:
        func = pickle.loads(task.func)
    else:
        from .registry import _REGISTRY, load_plugins

        load_plugins()
        if task.check.name not in _REGISTRY:
            raise LookupError(
                f"check {task.check.name!r} could not be sent to the worker (its function does not "
                "pickle) and is not registered there; register it at module level or run it with "
                "--workers 1"
            )
        func = _REGISTRY[task.check.name].func
    folder = Path(tempfile.mkdtemp(prefix="htdp-check-"))
    try:
        with _no_nested_pools():
            s, out = execute_check(
                task.check, profile=task.profile, seed=task.seed, out_dir=folder, progress=False, func=func
            )
        files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return s, out, files, clock.stop()


def _run_unit(unit: Any) -> Any:
    """Worker entry: one check (a :class:`_Task`: :func:`_run_task`'s result, or its exception) or a cache group's
    checks (a tuple of tasks, run one after the other in this process: a list of ``("ok", result)`` or
    ``("error", message, traceback)``, one per check)."""
    if isinstance(unit, _Task):
        return _run_task(unit)
    out: list[tuple] = []
    for task in unit:
        try:
            out.append(("ok", _run_task(task)))
        except Exception as exc:  # noqa: BLE001 - this check could not run here; the group's others still run
            out.append(("error", str(exc), traceback.format_exc()))
    return out


# ------------------------------------------------------------------------------------------------- parent side
def _pickle_func(func) -> bytes | None:
    """The check's function as bytes (cloudpickle: closures and ``__main__`` functions by value), or ``None``."""
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - joblib (a dependency) vendors it
        from joblib.externals import cloudpickle
    try:
        return cloudpickle.dumps(func)
    except Exception:  # noqa: BLE001 - unpicklable: the worker looks the check up by name
        return None


def _write_files(out_dir: Path, files: dict) -> None:
    for rel, data in files.items():
        p = PurePosixPath(rel)
        if p.is_absolute() or ".." in p.parts:
            raise ValueError(f"a worker returned a file outside the report folder: {rel!r}")
        dest = out_dir.joinpath(*p.parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)


class _ProcessPool:
    """A local process pool (forkserver where the platform has it, else spawn) with one thread per worker."""

    def __init__(self, workers: int, start_method: str | None):
        method = start_method or ("forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
        ctx = multiprocessing.get_context(method)
        if method == "forkserver":  # numpy and the engine imported once, in the server (also passes sys.path on)
            ctx.set_forkserver_preload(["htdp_verify.parallel"])
        self.slots, self._ctx, self.generation = workers, ctx, 0
        self._pool = self._new()

    def _new(self):
        return cf.ProcessPoolExecutor(self.slots, mp_context=self._ctx, initializer=_init_process_worker)

    def submit(self, task):
        try:
            return self._pool.submit(_run_unit, task)
        except cf.process.BrokenProcessPool as exc:  # broke since the last look: a new pool runs this check
            self.broken(exc, self.generation)
            return self._pool.submit(_run_unit, task)

    def wait(self, futures, timeout):
        return cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED)[0]

    def broken(self, exc, generation: int) -> bool:
        """Whether ``exc`` says a worker died (killed, out of memory, crashed), which loses every check in flight
        in that pool; the first report of a pool's death starts a new pool (``generation`` counts them)."""
        if not isinstance(exc, cf.process.BrokenProcessPool):
            return False
        if generation == self.generation:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new()
            self.generation += 1
        return True

    def _terminate(self):
        terminate = getattr(self._pool, "terminate_workers", None)
        if terminate is not None:  # Python >= 3.14
            terminate()
        else:
            for p in list((getattr(self._pool, "_processes", None) or {}).values()):
                if p.is_alive():
                    p.terminate()

    def close(self, abort: bool, futures=()):
        """Stop the pool.  ``abort`` (Ctrl-C, an early close): terminate the workers now.  Otherwise every result
        is in: the workers are asked to exit and given ``EXIT_GRACE_SECONDS``, then terminated.  A worker whose
        check left a process pool of its own running (joblib's loky pool stays alive for 300 s after its last
        task) would otherwise keep the run waiting for that pool's idle timeout."""
        if abort:  # stop running checks now (Ctrl-C): terminate the workers
            self._terminate()
            self._pool.shutdown(wait=False, cancel_futures=True)
            return
        procs = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + EXIT_GRACE_SECONDS
        for p in procs:
            p.join(max(0.0, deadline - time.monotonic()))
        if any(p.is_alive() for p in procs):
            for p in procs:
                if p.is_alive():
                    p.terminate()
        self._pool.shutdown(wait=True)


class _DaskPool:
    """Checks as Dask tasks: on the cluster at ``scheduler``, on ``client``, or on a new ``LocalCluster`` of
    ``workers`` single-threaded worker processes."""

    def __init__(self, workers: int | None, scheduler: str | None, client):
        try:
            from distributed import Client, LocalCluster, wait
        except ImportError:
            raise ValueError(
                "backend='dask' needs the 'distributed' package (pip install 'htdp-verify[dask]')"
            ) from None
        self._wait, self._cluster, self._own = wait, None, client is None
        if client is None:
            if scheduler is not None:
                client = Client(scheduler)
            else:
                import logging

                self._cluster = LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
                client = Client(self._cluster)
        self.client, self._fixed = client, workers if scheduler is None and self._cluster is not None else None

    @property
    def slots(self) -> int:
        if self._fixed is not None:
            return self._fixed
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, task):
        return self.client.submit(_run_unit, task, pure=False)

    def wait(self, futures, timeout):
        try:
            return set(self._wait(futures, timeout=timeout, return_when="FIRST_COMPLETED").done)
        except TimeoutError:
            return set()

    generation = 0

    def broken(self, exc, generation: int) -> bool:
        return False

    def close(self, abort: bool, futures=()):
        if abort and futures:
            self.client.cancel(list(futures))
        if self._own:
            self.client.close()
            if self._cluster is not None:
                self._cluster.close()


def iter_checks(
    checks: Sequence[Any],
    *,
    profile: str,
    seed: int,
    out_dir: str | os.PathLike[str],
    workers: int | None = None,
    backend: str = "processes",
    scheduler: str | None = None,
    client: Any = None,
    start_method: str | None = None,
    status: Callable[..., Any] | None = None,
    costs: Mapping[str, float] | None = None,
) -> Any:
    """Run ``checks`` in parallel; yield ``(check, check seed, results, timing)`` in the order they finish.

    At most as many units as there are workers (Dask: worker threads) are in flight, submitted in the order
    given, or longest expected first when ``costs`` are given (:func:`~htdp_verify.schedule.unit_order`: a long
    check started last would otherwise run alone at the end while the other workers wait).  A unit is one check,
    or the checks of one cache group (:func:`~htdp_verify.schedule.check_units`), run one after the other in one
    worker so that their shared cache is filled once; their results are yielded when the unit ends.  A check that
    raises gives an ``"error"`` result, as in a serial run.  A worker process that dies (a crash, ``os._exit``, the
    out-of-memory killer) breaks the pool: a new pool reruns the checks that were in flight one at a time, so the
    check that kills its worker again gets an ``"error"`` result and the others their own results (a Dask cluster
    retries such tasks itself).  Closing the generator early (or Ctrl-C while it waits) terminates the checks in
    flight.

    Parameters
    ----------
    checks : sequence of Check
        registered :class:`~htdp_verify.registry.Check` objects.
    profile : str
        the run's profile, passed to every check.
    seed : int
        the run's seed; check ``c`` gets ``derive_seed(seed, c.name)`` as in a serial run.
    out_dir : str or os.PathLike
        the report folder: files the checks write (figures) are copied there as each check finishes.
    workers : int, optional
        ``"processes"``: pool size; ``"dask"``: size of the ``LocalCluster`` started when neither
        ``scheduler`` nor ``client`` is given.  An integer in ``[1, max_workers()]``; default: the number of CPUs
        (must be left out with ``scheduler`` or ``client``).
    backend : str, default "processes"
        one of :data:`BACKENDS`.
    scheduler : str, optional
        address of a running Dask scheduler (``"tcp://host:8786"``; with ``backend="dask"``).
    client : distributed.Client, optional
        an existing ``distributed.Client`` (``backend="dask"``; not closed here).
    start_method : str, optional
        ``multiprocessing`` start method of the process pool (default ``"forkserver"`` where available,
        else ``"spawn"``).
    status : callable, optional
        called as ``status(running_names, seconds_of_the_oldest)`` about once a second (progress display).
    costs : mapping, optional
        expected seconds per check name (e.g. :func:`~htdp_verify.runlog.previous_costs` of an earlier run); the
        order of submission only, never the results.

    Yields
    ------
    tuple
        ``(check, seed, results, timing)``: the check, the seed it ran with, its list of
        :class:`~htdp_verify.results.CheckResult` and where and when it ran (:func:`task_timing`; ``None`` when
        it could not run in a worker).
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if scheduler is not None or client is not None:
        if backend != "dask":
            raise ValueError("scheduler and client need backend='dask'")
        if workers is not None:
            raise ValueError(
                "workers sizes a local pool or LocalCluster; with scheduler or client the cluster's "
                "workers run the checks (leave workers out)"
            )
    else:
        workers = check_workers(_cpus() if workers is None else workers)
    out_dir = Path(out_dir)
    pool = _ProcessPool(workers, start_method) if backend == "processes" else _DaskPool(workers, scheduler, client)
    queue = collections.deque(unit_order(check_units(checks), costs))
    inflight: dict = {}  # future -> (unit, start time, pool generation); insertion order = submission order
    finished = False
    suspects: collections.deque = collections.deque()  # checks in flight when a worker died: rerun one by one

    def submit(unit):
        tasks = tuple(
            _Task(Check(c.name, None, c.description, c.provenance, c.tags), _pickle_func(c.func), profile, seed)
            for c in unit
        )
        fut = pool.submit(tasks[0] if len(tasks) == 1 else tasks)
        inflight[fut] = (unit, time.perf_counter(), pool.generation)

    def failed(chk, t0, exc_text, tb, died=False):
        why = "could not run: the worker process running it died" if died else "could not run in a worker"
        return error_result(chk, derive_seed(seed, chk.name), time.perf_counter() - t0, f"{why}: {exc_text}", tb)

    try:
        while queue or inflight or suspects:
            if suspects:  # alone in the pool, so that a worker death names its check
                if not inflight:
                    submit((suspects.popleft(),))
            else:
                slots = pool.slots
                while queue and len(inflight) < slots:
                    submit(queue.popleft())
            if status is not None:
                now = time.perf_counter()
                status(
                    [c.name for v in inflight.values() for c in v[0]],
                    max((now - v[1] for v in inflight.values()), default=0),
                )
            done = pool.wait(list(inflight), POLL_SECONDS)
            for fut in [f for f in inflight if f in done]:
                if fut not in inflight:  # went back to the queue with a broken pool
                    continue
                unit, t0, gen = inflight.pop(fut)
                try:
                    got = fut.result()
                except Exception as exc:  # noqa: BLE001 - the unit could not run in a worker: say why
                    if pool.broken(exc, gen):
                        lost = [f for f, v in inflight.items() if v[2] == gen]  # the dead pool's other checks
                        if lost or len(unit) > 1:  # which check killed the worker is not known: rerun each alone
                            suspects.extend([*unit, *(c for f in lost for c in inflight.pop(f)[0])])
                            continue
                    died = isinstance(exc, cf.process.BrokenProcessPool)
                    for chk in unit:
                        yield (
                            chk,
                            derive_seed(seed, chk.name),
                            [failed(chk, t0, exc, traceback.format_exc(), died)],
                            None,
                        )
                    continue
                for chk, oc in zip(unit, [("ok", got)] if len(unit) == 1 else got):
                    s, timing = derive_seed(seed, chk.name), None
                    if oc[0] != "ok":
                        yield chk, s, [failed(chk, t0, oc[1], oc[2])], None
                        continue
                    try:
                        s, out, files, timing = oc[1]
                        _write_files(out_dir, files)
                    except Exception as exc:  # noqa: BLE001 - e.g. a file outside the report folder
                        out = [failed(chk, t0, exc, traceback.format_exc())]
                    yield chk, s, out, timing
        finished = True
    finally:
        pool.close(abort=not finished, futures=list(inflight))
