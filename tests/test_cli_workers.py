"""``htdp-verify run --workers N``: parallel runs give the serial run's results, bad N is a one-line usage error,
figures reach the report, workers use one BLAS thread, and an interrupted parallel run resumes."""

import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from _schema import validate_tree
from htdp_verify import cli, parallel
from htdp_verify.registry import register
from htdp_verify.results import CheckResult
from htdp_verify.schedule import shares_cache


@pytest.fixture(autouse=True)
def _results_files_match_the_schema(tmp_path):
    yield
    validate_tree(tmp_path)


@pytest.fixture
def scratch_registry(monkeypatch):
    """Checks registered in a test vanish afterwards."""
    from htdp_verify import registry

    registry.load_plugins()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


# --- cheap test checks (module level, so a worker imports them by name) ---------------------------------------
def mean_check(ctx):
    """A Monte Carlo mean with a one-sided z test: its estimate depends on every draw of the check's generator."""
    x = ctx.rng.standard_t(3, size=20_000)
    m, se = float(x.mean()), float(x.std() / np.sqrt(x.size))
    return CheckResult(
        name="zw.mean",
        verdict="consistent" if abs(m) < 4 * se else "violated",
        statistic="mean",
        estimate=m,
        interval=(m - 2 * se, m + 2 * se),
        alpha=0.05,
        n_samples=x.size,
        seed=ctx.seed,
        details={"first": ctx.rng.random(3).tolist()},
    )


def matrix_check(ctx):
    """A BLAS-heavy check (matrix products and an eigen-decomposition) returning two results."""
    a = ctx.rng.normal(size=(120, 120))
    w = np.linalg.eigvalsh(a @ a.T)
    r1 = CheckResult(
        name="zw.matrix.top", verdict="info", statistic="top_eigenvalue", estimate=float(w[-1]), seed=ctx.seed
    )
    r2 = CheckResult(name="zw.matrix.trace", verdict="info", statistic="trace", estimate=float(w.sum()), seed=ctx.seed)
    return [r1, r2]


def figure_check(ctx):
    """Writes a figure (and a file in a subfolder) into ctx.out_dir, as audits do."""
    import matplotlib.pyplot as plt

    y = ctx.rng.normal(size=50).cumsum()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(y)
    fig.savefig(ctx.out_dir / "zw_figure.png", dpi=60)
    plt.close(fig)
    (ctx.out_dir / "zw_extra").mkdir(exist_ok=True)
    (ctx.out_dir / "zw_extra" / "series.json").write_text(json.dumps(y.tolist()))
    return CheckResult(
        name="zw.figure",
        verdict="info",
        statistic="last",
        estimate=float(y[-1]),
        seed=ctx.seed,
        figures=["zw_figure.png"],
    )


def broken_check(ctx):
    raise RuntimeError("deliberately broken")


def threads_check(ctx):
    """What a worker sees: BLAS threads per library, the matplotlib backend."""
    import matplotlib
    from threadpoolctl import threadpool_info

    threads = sorted({int(i["num_threads"]) for i in threadpool_info()})
    return CheckResult(
        name="zw.threads",
        verdict="info",
        statistic="blas_threads",
        estimate=float(max(threads)),
        seed=ctx.seed,
        details={"threads": threads, "backend": matplotlib.get_backend().lower(), "pid": os.getpid()},
    )


def _register(*pairs):
    for name, f in pairs:
        register(name, description=f.__doc__ or name)(f)


CHEAP = (("zw.mean", mean_check), ("zw.matrix", matrix_check), ("zw.figure", figure_check), ("zw.broken", broken_check))


def _drop_seconds(x):
    if isinstance(x, dict):
        return {k: _drop_seconds(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [_drop_seconds(v) for v in x]
    return x


def _results(out: Path):
    """results.json's results without wall-clock times (a result's ``seconds``, an audit's stage ``seconds``): the
    only fields that may differ between two runs with one seed."""
    return _drop_seconds(json.loads((out / "results.json").read_text())["results"])


def test_workers_2_gives_the_serial_verdicts_numbers_and_figures(tmp_path, scratch_registry):
    _register(*CHEAP)
    names = ["zw", "stats.epsilon_lb_validity"]
    one, two = tmp_path / "one", tmp_path / "two"
    assert cli.main(["run", *names, "--seed", "31", "--out", str(one), "--no-progress"]) == cli.EXIT_ERROR
    assert (
        cli.main(["run", *names, "--seed", "31", "--out", str(two), "--no-progress", "--workers", "2"])
        == cli.EXIT_ERROR
    )  # zw.broken cannot run: exit 1 either way
    serial, par = _results(one), _results(two)
    assert [r["name"] for r in serial] == [
        "zw.broken",
        "zw.figure",
        "zw.matrix.top",
        "zw.matrix.trace",
        "zw.mean",
        "stats.epsilon_lb_validity",
    ]
    assert par == serial  # same order, verdicts, estimates, intervals, seeds, details (traceback text included)
    assert [r["verdict"] for r in par][:1] == ["error"] and "deliberately broken" in par[0]["summary"]
    # the figure and the other file the check wrote came back from the worker, byte for byte
    for f in ("zw_figure.png", "zw_extra/series.json", "stats_epsilon_lb_validity.png"):
        assert (two / f).read_bytes() == (one / f).read_bytes(), f
    assert "data:image/png;base64," in (two / "report.html").read_text()
    # the stream has one line per check (in the order they finished) with the same content
    lines = {json.loads(x)["check"]: x for x in (two / "results.jsonl").read_text().splitlines()[1:]}
    assert sorted(lines) == sorted(["zw.broken", "zw.figure", "zw.matrix", "zw.mean", "stats.epsilon_lb_validity"])


def test_a_different_seed_gives_different_numbers(tmp_path, scratch_registry):
    """The comparison above can fail: the numbers depend on the seed, in a parallel run too."""
    _register(("zw.mean", mean_check))
    a, b = tmp_path / "a", tmp_path / "b"
    cli.main(["run", "zw", "--seed", "1", "--out", str(a), "--no-progress", "--workers", "2"])
    cli.main(["run", "zw", "--seed", "2", "--out", str(b), "--no-progress", "--workers", "2"])
    assert _results(a)[0]["estimate"] != _results(b)[0]["estimate"]


def test_workers_use_one_blas_thread_and_agg(tmp_path, scratch_registry):
    _register(("zw.threads", threads_check))
    out = tmp_path / "t"
    assert cli.main(["run", "zw", "--out", str(out), "--no-progress", "--workers", "2"]) == 0
    d = _results(out)[0]["details"]
    assert d["threads"] == [1] and d["backend"] == "agg" and d["pid"] != os.getpid()


def test_dask_local_cluster_gives_the_serial_results(tmp_path, scratch_registry):
    pytest.importorskip("distributed")
    _register(*CHEAP[:3])
    one, dk = tmp_path / "one", tmp_path / "dask"
    assert cli.main(["run", "zw", "--seed", "7", "--out", str(one), "--no-progress"]) == 0
    assert (
        cli.main(["run", "zw", "--seed", "7", "--out", str(dk), "--no-progress", "--workers", "2", "--backend", "dask"])
        == 0
    )
    assert _results(dk) == _results(one)
    assert (dk / "zw_figure.png").read_bytes() == (one / "zw_figure.png").read_bytes()


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5", "1000000"])
def test_bad_worker_count_is_a_one_line_usage_error(bad, capsys):
    assert cli.main(["run", "stats", "--no-progress", "--workers", bad]) == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--workers" in err[0] and f"[1, {parallel.max_workers()}]" in err[0], err


def test_library_rejects_bad_workers_naming_the_parameter():
    for bad in (0, -3, True, 2.0, parallel.max_workers() + 1):
        with pytest.raises(ValueError, match=r"workers must be an integer in \[1, "):
            parallel.check_workers(bad)
    assert parallel.check_workers(parallel.max_workers()) == parallel.max_workers()


@pytest.mark.parametrize("extra,needle", [(["--workers", "2"], "--workers"), (["--backend", "processes"], "--backend")])
def test_scheduler_conflicts_are_usage_errors(extra, needle, capsys):
    assert cli.main(["run", "stats", "--no-progress", "--scheduler", "tcp://127.0.0.1:1", *extra]) == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "--scheduler" in err[0], err


def test_a_worker_that_dies_gives_an_error_result_and_the_run_goes_on(tmp_path, scratch_registry):
    _register(
        ("zw.a_mean", mean_check), ("zw.b_dies", _dies), ("zw.c_matrix", matrix_check), ("zw.d_figure", figure_check)
    )
    out = tmp_path / "d"
    assert cli.main(["run", "zw", "--out", str(out), "--no-progress", "--workers", "2"]) == cli.EXIT_ERROR
    rs = {r["name"]: r for r in _results(out)}
    assert rs.pop("zw.b_dies")["summary"].startswith("could not run: the worker process running it died")
    # the checks in flight beside it were rerun: they have their serial results
    serial = tmp_path / "s"
    cli.main(["run", "zw.a_mean", "zw.c_matrix", "zw.d_figure", "--out", str(serial), "--no-progress"])
    assert rs == {r["name"]: r for r in _results(serial)}


def _dies(ctx):
    os._exit(3)


def test_meta_says_where_the_checks_ran_and_the_log_when(tmp_path, scratch_registry):
    _register(*CHEAP[:3])
    one, two = tmp_path / "one", tmp_path / "two"
    assert cli.main(["run", "zw", "--out", str(one), "--no-progress"]) == 0
    assert cli.main(["run", "zw", "--out", str(two), "--no-progress", "--workers", "2"]) == 0
    m1 = json.loads((one / "results.json").read_text())["meta"]
    m2 = json.loads((two / "results.json").read_text())["meta"]
    assert (m1["workers"], m1["backend"]) == (1, "serial") and "scheduler" not in m1
    assert (m2["workers"], m2["backend"]) == (2, "processes")
    assert "2 workers (processes)" in (two / "report.md").read_text()
    assert "workers (" not in (one / "report.md").read_text()
    for out, parent_runs in ((one, True), (two, False)):
        lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()[1:]]
        ts = [x["timing"] for x in lines]
        assert len(ts) == 3 and all(t["finished"] >= t["started"] and t["cpu_seconds"] >= 0 for t in ts)
        assert all((t["worker"] == os.getpid()) == parent_runs for t in ts)


def nested_joblib_check(ctx):
    """Asks joblib for two processes, as diffprivlib audits do; reports which processes ran the items."""
    from joblib import Parallel, delayed

    pids = sorted(set(Parallel(n_jobs=2)(delayed(os.getpid)() for _ in range(4))))
    return CheckResult(
        name="zw.nested",
        verdict="info",
        statistic="n",
        estimate=float(len(pids)),
        seed=ctx.seed,
        details={"pids": pids},
    )


def test_joblib_inside_a_worker_runs_in_the_worker(tmp_path, scratch_registry):
    """No pool of joblib processes per worker: N workers use N cores, and no such pool outlives the run."""
    _register(("zw.nested", nested_joblib_check))
    out = tmp_path / "n"
    assert cli.main(["run", "zw", "--out", str(out), "--no-progress", "--workers", "2"]) == 0
    d = _results(out)[0]["details"]
    timing = json.loads((out / "results.jsonl").read_text().splitlines()[1])["timing"]
    assert d["pids"] == [timing["worker"]] and timing["worker"] != os.getpid()


def lingering_child_check(ctx):
    """Leaves a non-daemon child process running (as a joblib pool does for 300 s), which the worker's exit would
    wait for; returns its pid so that the test can stop it."""
    import multiprocessing
    import time as _time

    p = multiprocessing.get_context("spawn").Process(target=_time.sleep, args=(120,), daemon=False)
    p.start()
    return CheckResult(name="zw.linger", verdict="info", statistic="pid", estimate=float(p.pid), seed=ctx.seed)


def test_a_run_does_not_wait_for_processes_a_check_left_behind(tmp_path, scratch_registry, monkeypatch):
    monkeypatch.setattr(parallel, "EXIT_GRACE_SECONDS", 2.0)
    _register(("zw.linger", lingering_child_check))
    t0 = time.monotonic()
    code = cli.main(["run", "zw", "--out", str(tmp_path / "l"), "--no-progress", "--workers", "2"])
    took = time.monotonic() - t0
    pid = int(_results(tmp_path / "l")[0]["estimate"])
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    assert code == 0
    assert took < 90, f"the run waited {took:.0f} s for a child process of a worker"


# --- checks sharing an in-process cache run in one worker --------------------------------------------------------
@functools.lru_cache(maxsize=2)
def _shared_sweep(seed):
    """A Monte Carlo sweep three checks share (seeded by a constant, as the rate audits' shared sweeps are)."""
    return np.random.default_rng(seed).standard_t(3, size=(50, 2000)).mean(axis=1)


@shares_cache("zw.shared_sweep")
def sweep_mean_check(ctx):
    x = _shared_sweep(1234)
    return CheckResult(
        name="zw.g_mean",
        verdict="info",
        statistic="mean",
        estimate=float(x.mean()),
        seed=ctx.seed,
        details={"own": ctx.rng.random(2).tolist(), "misses": _shared_sweep.cache_info().misses},
    )


@shares_cache("zw.shared_sweep")
def sweep_sd_check(ctx):
    x = _shared_sweep(1234)
    return CheckResult(
        name="zw.g_sd", verdict="info", statistic="sd", estimate=float(x.std()), seed=ctx.seed, details={}
    )


@shares_cache("zw.shared_sweep")
def sweep_max_check(ctx):
    x = _shared_sweep(1234)
    return CheckResult(
        name="zw.g_max", verdict="info", statistic="max", estimate=float(x.max()), seed=ctx.seed, details={}
    )


SWEEP = (("zw.g_max", sweep_max_check), ("zw.g_mean", sweep_mean_check), ("zw.g_sd", sweep_sd_check))


def _timings(out):
    return {
        json.loads(x)["check"]: json.loads(x)["timing"] for x in (out / "results.jsonl").read_text().splitlines()[1:]
    }


def test_checks_of_one_cache_group_run_in_one_worker_with_the_serial_results(tmp_path, scratch_registry):
    _register(*SWEEP, ("zw.mean", mean_check), ("zw.matrix", matrix_check))
    one, two = tmp_path / "one", tmp_path / "two"
    assert cli.main(["run", "zw", "--seed", "5", "--out", str(one), "--no-progress"]) == 0
    assert cli.main(["run", "zw", "--seed", "5", "--out", str(two), "--no-progress", "--workers", "2"]) == 0
    assert _results(two) == _results(one)
    t = _timings(two)
    group = [t[n] for n, _ in SWEEP]  # in the order given (registry order), one after the other in one worker
    assert len({g["worker"] for g in group}) == 1 and group[0]["worker"] != os.getpid()
    assert all(a["finished"] <= b["started"] for a, b in zip(group, group[1:]))
    # the sweep was computed once in that worker, before the group's second check
    assert [r["details"]["misses"] for r in _results(two) if r["name"] == "zw.g_mean"] == [1]


def test_a_worker_death_in_a_cache_group_reruns_its_checks_one_by_one(tmp_path, scratch_registry):
    _register(*SWEEP[:2], ("zw.g_zdies", shares_cache("zw.shared_sweep")(_dies_in_group)))
    out, serial = tmp_path / "d", tmp_path / "s"
    assert cli.main(["run", "zw", "--out", str(out), "--no-progress", "--workers", "2"]) == cli.EXIT_ERROR
    rs = {r["name"]: r for r in _results(out)}
    assert rs.pop("zw.g_zdies")["summary"].startswith("could not run: the worker process running it died")
    cli.main(["run", "zw.g_max", "zw.g_mean", "--out", str(serial), "--no-progress"])
    assert rs == {r["name"]: r for r in _results(serial)}


def _dies_in_group(ctx):
    os._exit(3)


# --- resume of an interrupted parallel run (subprocess + Ctrl-C) ----------------------------------------------
DRIVER = """
import os, signal, sys, time
# Ctrl-C as in a terminal: a test runner started in the background of a non-interactive shell passes SIGINT
# on *ignored*, and Python then never raises KeyboardInterrupt (a fresh-clone CI run failed that way)
signal.signal(signal.SIGINT, signal.default_int_handler)
from htdp_verify import cli
from htdp_verify.registry import all_checks, register
from htdp_verify.results import CheckResult


@register("zz.a_fast", description="fast test check")
def fast(ctx):
    return CheckResult(name="zz.a_fast", verdict="consistent", statistic="u", estimate=float(ctx.rng.random()),
                       seed=ctx.seed)


@register("zz.b_slow", description="a check that sleeps unless ZZ_FAST is set")
def slow(ctx):
    if not os.environ.get("ZZ_FAST"):
        time.sleep(600)
    return CheckResult(name="zz.b_slow", verdict="violated", statistic="u", estimate=float(ctx.rng.random()),
                       seed=ctx.seed)


@register("zz.c_fast", description="another fast test check")
def fast2(ctx):
    return CheckResult(name="zz.c_fast", verdict="consistent", statistic="u", estimate=float(ctx.rng.random()),
                       seed=ctx.seed)


if __name__ == "__main__":
    all_checks()
    sys.exit(cli.main(sys.argv[1:]))
"""


def _cli(driver, *args, env=None):
    return subprocess.run(
        [sys.executable, str(driver), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def test_interrupted_parallel_run_resumes_with_workers(tmp_path):
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    out = tmp_path / "run"
    p = subprocess.Popen(
        [
            sys.executable,
            str(driver),
            "run",
            "zz",
            "--out",
            str(out),
            "--no-progress",
            "--seed",
            "11",
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stream = out / "results.jsonl"
    t0 = time.monotonic()
    while not (stream.exists() and len(stream.read_text().splitlines()) >= 3):  # header + the two fast checks
        assert p.poll() is None, p.stderr.read()
        assert time.monotonic() - t0 < 240, "the fast checks did not finish"
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=180)  # slow exits pass on a loaded machine; the worker sleeps 600 s
    assert time.monotonic() - t0 < 400  # the sleeping worker (600 s) was stopped, not waited for
    assert p.returncode == cli.EXIT_INTERRUPTED, err
    assert "Traceback" not in err and "--resume" in err, err
    done = [json.loads(x)["check"] for x in stream.read_text().splitlines()[1:]]
    assert sorted(done) == ["zz.a_fast", "zz.c_fast"]

    r = _cli(driver, "run", "--resume", str(out), "--no-progress", "--workers", "2", env={"ZZ_FAST": "1"})
    assert r.returncode == 0, r.stderr
    assert sorted(json.loads(x)["check"] for x in stream.read_text().splitlines()[1:]) == [
        "zz.a_fast",
        "zz.b_slow",
        "zz.c_fast",
    ]
    fresh = tmp_path / "fresh"
    r = _cli(driver, "run", "zz", "--out", str(fresh), "--no-progress", "--seed", "11", env={"ZZ_FAST": "1"})
    assert r.returncode == 0, r.stderr
    assert _results(out) == _results(fresh)
