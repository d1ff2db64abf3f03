"""Every notebook in ``notebooks/`` runs top to bottom at its small size (the tour must not rot).

Each notebook is executed with ``nbclient`` in a fresh kernel of *this* interpreter (a temporary kernelspec whose
argv is ``sys.executable -m ipykernel_launcher``, found first through ``JUPYTER_PATH``, so a stale user-level
``python3`` kernel cannot be picked up). A cell that raises fails the test. Two conventions are checked as well:
the committed notebooks carry no outputs (see ``notebooks/README.md``) and their parameter cell selects the small
size, which is what keeps this test within seconds per notebook.

Skipped only when ``nbclient`` / ``nbformat`` are not installed (they are in the ``test`` extra).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
KERNEL = "htdp-verify-test"
CELL_TIMEOUT = 600  # seconds per cell; the small sizes take seconds


def _ids(paths):
    return [p.stem for p in paths]


def test_notebooks_exist():
    names = {p.stem for p in NOTEBOOKS}
    expected = {
        "01_audit_a_mechanism",
        "02_audit_your_estimator",
        "03_rates_in_ci",
        "04_lower_bounds",
        "05_heavy_tailed_data",
        "hu2022",
    }
    assert expected <= names, f"missing notebooks: {sorted(expected - names)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_is_stripped_and_small(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    with_outputs = [i for i, c in enumerate(code) if c.get("outputs") or c.get("execution_count") is not None]
    assert not with_outputs, (
        f"{path.name}: code cells {with_outputs} carry outputs; strip them with "
        "`jupyter nbconvert --clear-output --inplace`"
    )
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert params, f"{path.name}: no code cell tagged 'parameters'"
    assert 'SIZE = "small"' in params[0].source, f'{path.name}: the parameters cell must default to SIZE = "small"'


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    pytest.importorskip("ipykernel", reason="ipykernel is needed to execute the notebooks (test extra)")
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "htdp-verify (test interpreter)",
                "language": "python",
            }
        )
    )
    return root


def _execute(nb, cwd):
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name=KERNEL, resources={"metadata": {"path": str(cwd)}}
    )
    client.execute()  # raises CellExecutionError naming the cell on any exception


def test_a_failing_cell_fails(kernel_dir, tmp_path, monkeypatch):
    """The runner is not a no-op: a notebook whose second cell raises is reported, with the exception."""
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    v4 = nbformat.v4
    nb = v4.new_notebook(
        cells=[
            v4.new_code_cell("import sys; x = 1"),
            v4.new_code_cell("raise ValueError('deliberately broken notebook')"),
        ]
    )
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="deliberately broken"):
        _execute(nb, tmp_path)
    assert nb.cells[0].outputs == [] and nb.cells[0].execution_count == 1


def test_kernel_is_this_interpreter(kernel_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    v4 = nbformat.v4
    nb = v4.new_notebook(cells=[v4.new_code_cell("import sys; print(sys.executable)")])
    _execute(nb, tmp_path)
    assert nb.cells[0].outputs[0]["text"].strip() == sys.executable


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_runs(path, kernel_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir))
    nb = nbformat.read(path, as_version=4)
    _execute(nb, tmp_path)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, f"{path.name}: {errors[0]['ename']}: {errors[0]['evalue']}"
