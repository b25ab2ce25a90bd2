"""The notebooks in examples/ run, cell by cell, in a kernel of this interpreter (so against the
retrylab it imports: the build tree under ctest, the installed package under .ci/python-package).
Each notebook asserts the claim its figure makes; a cell that raises fails the test. Needs Debian's
python3-nbclient and python3-ipykernel (.ci/install-deps)."""
import json
import os
import pathlib
import sys

import pytest

import retrylab

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 2, EXAMPLES


@pytest.fixture
def kernel(tmp_path, monkeypatch):
    # A kernel spec for this very interpreter: Debian's "python3" spec runs /usr/bin/python3, which
    # is not a virtual environment's.
    spec = tmp_path / "kernels" / "retrylab-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "retrylab test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    # The kernel imports the retrylab this test imported (it runs in another folder).
    here = str(pathlib.Path(retrylab.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([here] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the notebooks draw inline
    return "retrylab-test"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_draws(path, kernel, tmp_path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs"), f"{path.name}: commit notebooks without outputs"
    nbclient.NotebookClient(nb, kernel_name=kernel, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert images, f"{path.name} drew no figure"
