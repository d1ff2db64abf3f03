"""Monte Carlo engine: reproducible seeding across backends, the tidy table, persistence, validation.

These tests are deterministic (no statistical assertion): they check that one integer seed gives bit-identical
numbers on the serial, joblib-processes and dask.distributed backends and for any chunking.
"""

from __future__ import annotations

import numpy as np
import pytest

from htdp_verify.montecarlo import MonteCarloResult, child_seed_sequence, load_results, replicate, sweep


# module-level workloads (picklable by reference for joblib/dask workers)
def mean_error(n, shift=0.0, *, rng):
    x = rng.standard_normal(n) + shift
    return {"error": abs(x.mean() - shift), "sd": x.std()}


def mean_error_vec(n, *, n_reps, rng):
    return np.abs(rng.standard_normal((n_reps, n)).mean(axis=1))


def scalar_draw(*, rng):
    return rng.random()


GRID = {"n": [10, 100, 1000], "shift": [0.0, 2.0]}


def test_child_seeds_are_spawn_children():
    root = np.random.SeedSequence(7)
    cells = root.spawn(3)
    reps = cells[2].spawn(5)
    for r in range(5):
        a = np.random.default_rng(child_seed_sequence(7, 2, r)).random(4)
        b = np.random.default_rng(reps[r]).random(4)
        assert np.array_equal(a, b)


def test_table_layout_and_row_reproduction():
    res = sweep(mean_error, GRID, 4, seed=11, progress=False)
    t = res.table
    assert list(t.columns) == ["n", "shift", "cell", "rep", "seed", "spawn_key", "error", "sd"]
    assert len(t) == 6 * 4 and res.n_cells == 6 and res.outputs == ["error", "sd"]
    # row-major grid: the last variable varies fastest
    assert t.drop_duplicates("cell")[["n", "shift"]].values.tolist() == [
        [10, 0.0],
        [10, 2.0],
        [100, 0.0],
        [100, 2.0],
        [1000, 0.0],
        [1000, 2.0],
    ]
    assert (t["seed"] == 11).all()
    row = t.iloc[13]
    assert row["spawn_key"] == f"{row['cell']}/{row['rep']}"
    again = mean_error(int(row["n"]), float(row["shift"]), rng=res.rng_for(int(row["cell"]), int(row["rep"])))
    assert again["error"] == row["error"]
    assert res.values("error").shape == (6, 4)
    s = res.summary("error", "median")
    assert len(s) == 6 and "error_median" in s.columns


def test_same_seed_same_numbers_different_seed_different_numbers():
    a = sweep(mean_error, GRID, 5, seed=3, progress=False).values("error")
    b = sweep(mean_error, GRID, 5, seed=3, progress=False).values("error")
    c = sweep(mean_error, GRID, 5, seed=4, progress=False).values("error")
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_serial_equals_processes():
    serial = sweep(mean_error, GRID, 12, seed=5, progress=False)
    procs = sweep(mean_error, GRID, 12, seed=5, backend="processes", n_jobs=2, chunk_size=5, progress=False)
    assert np.array_equal(serial.values("error"), procs.values("error"))
    assert np.array_equal(serial.values("sd"), procs.values("sd"))
    assert serial.table["spawn_key"].tolist() == procs.table["spawn_key"].tolist()


def test_serial_equals_processes_vectorised():
    grid = {"n": [10, 100, 1000]}
    serial = sweep(mean_error_vec, grid, 50, seed=9, vectorised=True, chunk_size=16, progress=False)
    procs = sweep(
        mean_error_vec, grid, 50, seed=9, vectorised=True, chunk_size=16, backend="processes", n_jobs=2, progress=False
    )
    assert np.array_equal(serial.values(), procs.values())
    # chunk j of cell c was drawn from spawn key (c, j)
    assert serial.table.loc[serial.table.rep == 20, "spawn_key"].tolist() == ["0/1", "1/1", "2/1"]
    direct = mean_error_vec(100, n_reps=16, rng=serial.rng_for(1, 1))
    assert np.array_equal(direct, serial.values()[1, 16:32])


def test_task_chunking_does_not_change_numbers():
    a = sweep(mean_error, GRID, 7, seed=2, chunk_size=1, progress=False).values("error")
    b = sweep(mean_error, GRID, 7, seed=2, chunk_size=3, backend="processes", n_jobs=2, progress=False).values("error")
    assert np.array_equal(a, b)


def test_dask_local_cluster_matches_serial():
    distributed = pytest.importorskip("distributed")
    grid = {"n": [10, 100, 1000]}
    serial = sweep(mean_error, grid, 6, seed=21, progress=False)
    vec = sweep(mean_error_vec, grid, 40, seed=21, vectorised=True, chunk_size=10, progress=False)
    with (
        distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None) as cl,
        distributed.Client(cl) as client,
    ):
        on_dask = sweep(mean_error, grid, 6, seed=21, backend="dask", client=client, chunk_size=2, progress=False)
        vec_dask = sweep(
            mean_error_vec,
            grid,
            40,
            seed=21,
            vectorised=True,
            chunk_size=10,
            backend="dask",
            client=client,
            progress=False,
        )
        assert len(client.scheduler_info()["workers"]) == 2
    assert np.array_equal(serial.values("error"), on_dask.values("error"))
    assert np.array_equal(vec.values(), vec_dask.values())
    assert on_dask.backend == "dask"


def test_dask_own_cluster_matches_serial():
    """Without a client the run starts its own quiet local cluster (the function shipped once), same numbers."""
    pytest.importorskip("distributed")
    from htdp_verify.montecarlo.backends import local_cluster

    serial = sweep(mean_error, {"n": [10, 100]}, 5, seed=4, chunk_size=2, progress=False)
    own = sweep(mean_error, {"n": [10, 100]}, 5, seed=4, chunk_size=2, backend="dask", n_jobs=2, progress=False)
    assert np.array_equal(serial.values("error"), own.values("error")) and own.backend == "dask"
    with pytest.raises(ValueError, match="n_workers"):
        local_cluster(0)


def test_replicate_and_progress_bar(capsys):
    res = replicate(scalar_draw, 10, seed=0, progress=True)
    assert res.outputs == ["value"] and res.values().shape == (1, 10)
    assert res.table["cell"].eq(0).all()
    assert np.array_equal(res.values()[0], [scalar_draw(rng=res.rng_for(0, r)) for r in range(10)])


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_save_load_roundtrip(tmp_path, suffix):
    res = sweep(mean_error, GRID, 3, seed=8, progress=False)
    path = res.save(tmp_path / f"run{suffix}")
    back = load_results(path)
    assert isinstance(back, MonteCarloResult)
    assert back.seed == 8 and back.grid == res.grid and back.n_reps == 3 and back.outputs == res.outputs
    assert np.array_equal(back.values("error"), res.values("error"))  # exact: written with 17 digits
    assert back.table["spawn_key"].tolist() == res.table["spawn_key"].tolist()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(fn=mean_error, grid=GRID, n_reps=3, seed=-1), "seed"),
        (dict(fn=mean_error, grid=GRID, n_reps=3, seed=1.5), "seed"),
        (dict(fn=mean_error, grid=GRID, n_reps=0, seed=1), "n_reps"),
        (dict(fn=mean_error, grid=GRID, n_reps=3, seed=1, backend="threads"), "backend"),
        (dict(fn=mean_error, grid={"n": []}, n_reps=3, seed=1), "grid"),
        (dict(fn=mean_error, grid={"rng": [1]}, n_reps=3, seed=1), "reserved"),
        (dict(fn=mean_error, grid={"m": [1]}, n_reps=3, seed=1), "keyword arguments"),
        (dict(fn=mean_error, grid=GRID, n_reps=3, seed=1, vectorised=True), "n_reps"),
        (dict(fn=mean_error, grid=GRID, n_reps=3, seed=1, n_jobs=0), "n_jobs"),
        (dict(fn=mean_error, grid=GRID, n_reps=3, seed=1, chunk_size=0), "chunk_size"),
    ],
)
def test_validation(kwargs, match):
    fn = kwargs.pop("fn")
    with pytest.raises(ValueError, match=match):
        sweep(fn, progress=False, **kwargs)


def test_bad_outputs_are_rejected():
    with pytest.raises(ValueError, match="real scalar"):
        replicate(lambda *, rng: rng.random(3), 2, seed=0, progress=False)
    with pytest.raises(ValueError, match="shape"):
        replicate(lambda *, n_reps, rng: rng.random(n_reps + 1), 4, seed=0, vectorised=True, progress=False)
