"""The example notebooks run from top to bottom (nbclient), so they cannot rot."""

import pytest


@pytest.mark.parametrize("name", ["buffer-sweep.ipynb"])
def test_example_notebook_runs(repo, name):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    path = repo / "examples" / name
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("goodput_mbps" in str(o.get("data", {})) for o in outputs)
