"""Third-party private learners run as peers (the optional ``peers`` extra), and the small
compatibility layer that lets diffprivlib run on scikit-learn releases newer than it.

diffprivlib 0.6.6 (its newest release) was written against scikit-learn ≤ 1.7. Two things
it uses were removed since, and :func:`diffprivlib` restores exactly those, and only where
they are missing (on scikit-learn 1.7 nothing is touched):

- ``sklearn.tree._tree.DOUBLE`` and ``DTYPE`` (removed in 1.8; imported by diffprivlib's
  random forest at package import): the dtypes they named, ``float64`` and ``float32``;
- ``LogisticRegression(multi_class=...)`` (removed in 1.8; diffprivlib's constructor passes
  ``multi_class='ovr'``): the keyword is dropped before scikit-learn's constructor and
  ``multi_class = 'ovr'`` kept as an attribute. diffprivlib fits one-vs-rest itself and
  never reads it, so its fits are unchanged.

There is no public way to do the first: diffprivlib itself imports these private names of
scikit-learn (``from sklearn.tree._tree import Tree, DOUBLE, DTYPE, NODE_DTYPE``, its
``models/forest.py``) when its package is imported, so they must be where it looks. If
scikit-learn moves or renames that private module or the names it still has,
:func:`diffprivlib` raises :class:`PeerIncompatible` naming them (not a skipped cell: a
peer that used to run must not silently stop), and ``tests/test_peers.py`` fails with it.

``tests/test_peers.py`` checks that ``diffprivlib_logreg``'s fits on the installed
scikit-learn are identical to a reference made with the unpatched library on scikit-learn
1.7 (``tests/peers/``; its environment is ``requirements/reference-sklearn-1.7.lock``).
"""

from __future__ import annotations

import functools
import importlib
import inspect
from types import ModuleType

#: the extra that installs the peers: ``pip install -e ".[peers]"``
EXTRA = "peers"

#: what the compatibility layer adapted in this process (empty where nothing was missing)
PATCHED: list[str] = []


class PeerMissing(ImportError):
    """A peer library is not installed; the message says how to install it."""


def missing_reason(package: str) -> str:
    return f"{package} is not installed (pip install -e '.[{EXTRA}]')"


class PeerIncompatible(RuntimeError):
    """The installed scikit-learn changed a private name diffprivlib imports, in a way the
    compatibility layer does not know; the message names it."""


#: scikit-learn's private module diffprivlib imports from, and the names it imports.
PRIVATE_TREE_MODULE = "sklearn.tree._tree"
PRIVATE_TREE_NAMES = ("Tree", "DOUBLE", "DTYPE", "NODE_DTYPE")


def _incompatible(what: str) -> PeerIncompatible:
    import sklearn

    return PeerIncompatible(f"scikit-learn {sklearn.__version__}: {what}; diffprivlib imports "
                            f"{', '.join(PRIVATE_TREE_NAMES)} from {PRIVATE_TREE_MODULE} (private) and "
                            "dpbench.learners.peers cannot adapt it: update its compatibility layer")  # fmt: skip


def _restore_tree_dtypes() -> list[str]:
    import numpy as np

    try:
        _tree = importlib.import_module(PRIVATE_TREE_MODULE)
    except ImportError:
        raise _incompatible(f"no module {PRIVATE_TREE_MODULE}") from None
    restored = []
    for name, dtype in (("DOUBLE", np.float64), ("DTYPE", np.float32)):
        if not hasattr(_tree, name):
            setattr(_tree, name, dtype)
            restored.append(f"{PRIVATE_TREE_MODULE}.{name}")
    missing = [name for name in PRIVATE_TREE_NAMES if not hasattr(_tree, name)]
    if missing:
        raise _incompatible(f"{PRIVATE_TREE_MODULE} has no {', '.join(missing)}")
    return restored


def _accept_multi_class(cls: type) -> list[str]:
    """Let ``cls.__init__`` (a subclass of scikit-learn's LogisticRegression) pass
    ``multi_class`` to a scikit-learn whose constructor no longer takes it."""
    from sklearn.linear_model import LogisticRegression

    if "multi_class" in inspect.signature(LogisticRegression.__init__).parameters or getattr(cls, "_dpbench_compat", False):
        return []
    sklearn_init = LogisticRegression.__init__

    @functools.wraps(sklearn_init)
    def init_without_multi_class(self, *args, multi_class="ovr", **kwargs):
        sklearn_init(self, *args, **kwargs)
        self.multi_class = multi_class

    # diffprivlib calls super().__init__: give its class a parent whose __init__ drops the keyword
    parent = type("LogisticRegression", (LogisticRegression,), {"__init__": init_without_multi_class, "__module__": LogisticRegression.__module__})
    cls.__bases__ = tuple(parent if base is LogisticRegression else base for base in cls.__bases__)
    cls._dpbench_compat = True
    return [f"{cls.__module__}.{cls.__name__}(multi_class=)"]


@functools.cache
def diffprivlib() -> ModuleType:
    """``diffprivlib.models`` (the whole package imported: ``diffprivlib.mechanisms`` too),
    importable and constructible on the installed scikit-learn
    (see the module docstring); :class:`PeerMissing` if diffprivlib is not installed,
    :class:`PeerIncompatible` if scikit-learn moved a private name it imports."""
    if importlib.util.find_spec("diffprivlib") is None:
        raise PeerMissing(missing_reason("diffprivlib"))
    PATCHED.extend(_restore_tree_dtypes())
    models = importlib.import_module("diffprivlib.models")
    PATCHED.extend(_accept_multi_class(models.LogisticRegression))
    return models
