"""docs/findings.md states numbers; the ones an exact computation gives are recomputed here
(the course notes' Theorem 3 paragraph), so the page cannot go stale silently. Each number is
checked as the page writes it (its rounding). The DP-Winnow and dp_sgd paragraphs state
measurements of long runs made when the defects were fixed, inside the page's
``<!-- measured -->`` block; they are not recomputed by the suite."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from dpbench.mechanisms.accounting import compose_bounded_range
from dpbench.mechanisms.exact import epsilon_for_delta, hedge_swap_delta, hedge_swap_log_pmfs

PAGE = Path(__file__).resolve().parents[1] / "docs" / "findings.md"
DELTA = 1e-6


def _alpha(eps: float, T: int) -> float:
    return math.sqrt(eps / (12 * T))


def _page() -> str:
    return " ".join(PAGE.read_text(encoding="utf-8").split())


@pytest.mark.parametrize("T", [2_300, 1_000_000])
def test_exact_delta_at_epsilon_one_is_the_pages(T):
    assert "At ε = 1 it is ≈ 3.2·10⁻⁵ for every T from 2300 to 10⁶" in _page()
    assert f"{hedge_swap_delta(_alpha(1.0, T), T, 1.0):.1e}" == "3.2e-05"


def test_exact_and_certified_epsilons_are_the_pages():
    """The exact ε at δ = 10⁻⁶ of the pair (1.24; 1.81, 2.64, 5.76 at ε = 2, 4, 16) and the
    accountant's (1.33; 1.94, 2.83, 6.2), at T = 10⁶ (the exact ε grows with T up to there by < 0.01; the accountant's is ε/24-zCDP in total, whatever T)."""
    page = _page()
    T = 1_000_000
    exact = {eps: epsilon_for_delta(*hedge_swap_log_pmfs(_alpha(eps, T), T), DELTA) for eps in (1, 2, 4, 16)}
    certified = {eps: compose_bounded_range(2 * _alpha(eps, T), T, DELTA) for eps in (1, 2, 4, 16)}
    assert f"the exact ε at δ = 10⁻⁶ of that one pair is {exact[1]:.2f}." in page
    assert f"certifies ε = {certified[1]:.2f} at 10⁻⁶" in page
    stated = re.search(r"\(ε = 2: ([\d.]+); ε = 4: ([\d.]+); ε = 16: ([\d.]+), where the exact pair gives ([\d.]+), ([\d.]+), ([\d.]+)\)", page)
    assert stated, "the page's ε = 2, 4, 16 sentence changed: update this test"
    cert, ex = stated.groups()[:3], stated.groups()[3:]
    for eps, c, e in zip((2, 4, 16), cert, ex):
        assert f"{certified[eps]:.{len(c.split('.')[1])}f}" == c, (eps, certified[eps], c)
        assert f"{exact[eps]:.{len(e.split('.')[1])}f}" == e, (eps, exact[eps], e)
