"""The optional peers (``.[peers]``): diffprivlib_logreg on the installed scikit-learn, with
dpbench.learners.peers' compatibility layer where it is needed, fits exactly as the unpatched
diffprivlib did on scikit-learn 1.7 (the stored reference in tests/peers/), and without
diffprivlib its cells are skipped with the reason."""

from __future__ import annotations

import importlib
import importlib.util
import json

import pytest

from dpbench.learners import peers
from tests.peers.make_diffprivlib_reference import CASES, OUT, fits

pytestmark = pytest.mark.skipif(importlib.util.find_spec("diffprivlib") is None, reason="the peers extra is not installed")


def test_fits_equal_the_unpatched_reference_on_sklearn_1_7():
    """Equal to a few ulps (1e-15 relative) where numpy and scipy are the reference's (the
    optimiser is scipy's L-BFGS-B: on another CPU, OpenBLAS's kernels for it can round the
    last bit differently — seen 2026-11-26, 3.873836687078308 against ...083); with other
    releases of those (the minimum-versions CI step), equal to 1e-9 relative: the last bits
    of an optimiser may differ, the fit not."""
    import numpy as np
    import scipy

    reference = json.loads(OUT.read_text())
    assert reference["sklearn"].startswith("1.7.") and [(c["d"], c["n"], float(c["epsilon"]), c["seed"]) for c in reference["cases"]] == CASES
    same_stack = (np.__version__, scipy.__version__) == (reference["numpy"], reference["scipy"])
    for got, want in zip(fits(), reference["cases"]):
        np.testing.assert_allclose([float(c) for c in got["coef"]], [float(c) for c in want["coef"]], rtol=1e-15 if same_stack else 1e-9)


def test_layer_patches_only_what_is_missing():
    import sklearn
    from sklearn.tree import _tree

    peers.diffprivlib()
    major_minor = tuple(int(p) for p in sklearn.__version__.split(".")[:2])
    if major_minor < (1, 8):
        assert peers.PATCHED == []
    else:
        assert "sklearn.tree._tree.DOUBLE" in peers.PATCHED and any("multi_class" in p for p in peers.PATCHED)
    assert _tree.DOUBLE.__name__ == "float64" and _tree.DTYPE.__name__ == "float32"


def test_the_private_sklearn_names_diffprivlib_imports_are_there():
    """No public way exists to give diffprivlib the private scikit-learn names it imports:
    this fails, with the message saying what moved, the day scikit-learn moves them."""
    peers.diffprivlib()
    module = importlib.import_module(peers.PRIVATE_TREE_MODULE)
    missing = [name for name in peers.PRIVATE_TREE_NAMES if not hasattr(module, name)]
    assert not missing, f"{peers.PRIVATE_TREE_MODULE} lacks {missing}: dpbench.learners.peers must adapt it"


def test_a_moved_private_name_stops_with_the_reason(monkeypatch):
    """The check above can fail, and the layer says why instead of skipping the peer."""
    module = importlib.import_module(peers.PRIVATE_TREE_MODULE)
    monkeypatch.delattr(module, "NODE_DTYPE")
    with pytest.raises(peers.PeerIncompatible, match=r"sklearn\.tree\._tree has no NODE_DTYPE.*update its compatibility layer"):
        peers._restore_tree_dtypes()
    monkeypatch.setattr(peers, "PRIVATE_TREE_MODULE", "sklearn.tree._no_such_module")
    with pytest.raises(peers.PeerIncompatible, match="no module sklearn.tree._no_such_module"):
        peers._restore_tree_dtypes()


def test_reference_can_fail(monkeypatch):
    """The comparison judges: a different ε (other noise) gives other coefficients."""
    monkeypatch.setattr("tests.peers.make_diffprivlib_reference.CASES", [(2, 100, 2.0, 0)])
    from tests.peers import make_diffprivlib_reference as ref

    assert ref.fits()[0]["coef"] != json.loads(OUT.read_text())["cases"][0]["coef"]


def test_without_the_extra_cells_are_skipped_with_the_reason(monkeypatch):
    from dpbench.experiments.base import run_batch_cell
    from dpbench.orchestration.config import from_dict

    real_find_spec = peers.importlib.util.find_spec
    monkeypatch.setattr(peers.importlib.util, "find_spec", lambda name, *a: None if name == "diffprivlib" else real_find_spec(name, *a))
    peers.diffprivlib.cache_clear()
    try:
        grid = from_dict({"seed": 1, "experiments": {"private_erm": {
            "problem": "logistic", "problem_params": {"d": 2}, "learners": ["diffprivlib_logreg"],
            "epsilon": [1.0], "n": [50], "repetitions": 2}}})
        (cell,) = grid.experiments["private_erm"].cells
        from dpbench.experiments.base import draw_target

        rows = run_batch_cell(cell, draw_target(cell, 1), 1)
    finally:
        peers.diffprivlib.cache_clear()
    assert [r["status"] for r in rows] == ["skipped", "skipped"]
    assert rows[0]["reason"] == "diffprivlib is not installed (pip install -e '.[peers]')"
