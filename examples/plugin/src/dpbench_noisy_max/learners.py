r"""Conjunctions of at most ``k`` literals, learned by ERM and by report noisy max.

The hypothesis class :math:`H_k` holds every conjunction of at most ``k`` of the ``m``
literals (``m = 2d``: :math:`x_i` and :math:`\neg x_i`, or ``m = d`` on a monotone problem),
without contradictory pairs; :math:`|H_k| = \sum_{s \le k} \binom{d}{s} 2^s` (``1`` instead
of ``2^s`` when monotone). Hypotheses are ordered by length, then lexicographically, so the
first minimiser of the mistakes is a shortest one (Occam). Mistakes of the whole class are
computed bit-packed (:mod:`dpbench.kernels.bitset`, 64 examples per word) and cached on the sample,
so the two learners share them within a shard.

``kconj_erm`` returns the first hypothesis with the fewest training mistakes. Not private.
Utility (realizable, any consistent learner over a finite class; Blumer et al., "Occam's Razor", 1987):
error :math:`\le (\ln|H_k| + \ln(1/\beta))/n` with probability :math:`\ge 1-\beta` when
the target has at most ``k`` literals.

``kconj_noisy_max`` is report noisy max ([DR14, §3.3]) on the scores
:math:`u(h) = -\mathrm{mistakes}_S(h)`: it returns :math:`\arg\max_h u(h) + L_h` with iid
:math:`L_h \sim \mathrm{Lap}(b)`, :math:`b = 2\Delta/\varepsilon`, :math:`\Delta = 1`.

Privacy: ε-DP under replace-one neighbours. Replacing one example moves every score by at
most :math:`\Delta = 1`, in either direction. Fix the noise of all hypotheses but ``h``:
``h`` wins iff :math:`L_h > r(S) = \max_{g \ne h}(u_g(S) + L_g) - u_h(S)`, and
:math:`r(S') \le r(S) + 2\Delta`; the Laplace density ratio then gives
:math:`P[L_h > r(S')] \ge e^{-2\Delta/b} P[L_h > r(S)] = e^{-\varepsilon} P[L_h > r(S)]`.
([DR14, Claim 3.9] gets :math:`b = 1/\varepsilon` only for counting queries whose
scores move in one direction; mistakes move both ways, hence the factor 2.)
The audit instance below computes the exact ε of its neighbouring pair from the law of
:math:`L_1 - L_2` (:func:`laplace_difference_tail`) and checks it stays below the claim.

Utility: :math:`P[\max_h |L_h| > b \ln(|H_k|/\beta)] \le \beta`, so with probability
:math:`\ge 1-\beta` the training error is at most
:math:`\mathrm{OPT}_S + 2b\ln(|H_k|/\beta)/n = \mathrm{OPT}_S + 4\ln(|H_k|/\beta)/(\varepsilon n)`.
ε = ∞ adds no noise and returns ``kconj_erm``'s hypothesis (its twin).

Declared theorems (``theorem``: the theory line and verdict of each curve, docs/plugins.md,
"Declare its theorem"), realizable case only (no label noise and a target of at most ``k``
literals, so :math:`\mathrm{OPT}_S = 0`). ``kconj_erm``: the Occam bound above.
``kconj_noisy_max``: with probability :math:`\ge 1-\beta/2` every :math:`|L_h| \le b\ln(2|H_k|/\beta)`,
so the released hypothesis makes at most :math:`4\ln(2|H_k|/\beta)/\varepsilon` training
mistakes; by the multiplicative Chernoff bound and a union over :math:`H_k`, with probability
:math:`\ge 1-\beta/2` every hypothesis of error :math:`> \alpha` makes more than
:math:`n\alpha/2` mistakes once :math:`n\alpha \ge 8\ln(2|H_k|/\beta)`. Together: error
:math:`\le 8\ln(2|H_k|/\beta)/(n\min(1, \varepsilon))` with probability :math:`\ge 1-\beta`,
exponent −1 in n, and :math:`n(\alpha, \varepsilon) = 8\ln(2|H_k|/\beta)/(\alpha\min(1, \varepsilon))`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from dpbench.audits.engine import AuditCase
from dpbench.foundation.registry import register_learner
from dpbench.foundation.validation import check_epsilon, check_nonneg_int, normalise
from dpbench.kernels.bitset import pack_columns, popcount_rows
from dpbench.learners.base import REPLACE_ONE, Guarantee, Learner
from dpbench.problems.base import Sample
from dpbench.problems.conjunction import Conjunction, ConjunctionClass
from dpbench.theory.declared import DeclaredRate

#: Score sensitivity: one replaced example changes a hypothesis's mistakes by at most 1.
SENSITIVITY = 1.0
#: Largest class enumerated (beyond it the cells are ``skipped`` with the reason).
MAX_HYPOTHESES = 200_000


def class_size(d: int, k: int, monotone: bool) -> int:
    """:math:`|H_k| = \\sum_{s \\le k} \\binom{d}{s} c^s` with ``c = 1`` (monotone) or 2."""
    c = 1 if monotone else 2
    return sum(math.comb(d, s) * c**s for s in range(min(k, d) + 1))


def short_conjunctions(d: int, k: int, monotone: bool) -> npt.NDArray[np.int64]:
    """The literals of every hypothesis of :math:`H_k`, shape ``(|H_k|, max(k, 1))``.

    Literal ``j < d`` is :math:`x_j`, literal ``d + j`` is :math:`\\neg x_j`; the index
    ``2d`` pads shorter conjunctions (a constant-true column). Ordered by length, then
    lexicographically by variable and sign."""
    width, pad = max(k, 1), 2 * d
    rows = []
    for size in range(min(k, d) + 1):
        for variables in itertools.combinations(range(d), size):
            for signs in itertools.product(*([(0,)] if monotone else [(0, 1)]) * size):
                literals = [v + d * s for v, s in zip(variables, signs)]
                rows.append(literals + [pad] * (width - size))
    return np.array(rows, dtype=np.int64).reshape(-1, width)


def hypothesis(literals: npt.NDArray[np.int64], d: int) -> Conjunction:
    """The :class:`~dpbench.problems.conjunction.Conjunction` of one row of literals."""
    pos = np.zeros(d, dtype=bool)
    neg = np.zeros(d, dtype=bool)
    pos[literals[literals < d]] = True
    neg[literals[(literals >= d) & (literals < 2 * d)] - d] = True
    return Conjunction(pos=pos, neg=neg)


def class_mistakes(sample: Sample, k: int) -> npt.NDArray[np.int64]:
    """Training mistakes of every hypothesis of :math:`H_k` (cached on the sample).

    Bit-packed: each hypothesis's positive set is the AND of its literals' packed columns;
    ``mistakes = #positives − |P ∧ y| + |P ∧ ¬y|``."""

    def compute() -> npt.NDArray[np.int64]:
        X = np.asarray(sample.X, dtype=bool)
        y = np.asarray(sample.y, dtype=bool)
        d = X.shape[1]
        columns = np.concatenate([X, ~X, np.ones((len(y), 1), dtype=bool)], axis=1)
        packed = pack_columns(columns)  # (2d + 1, W)
        literals = short_conjunctions(d, k, sample.concept_class.monotone)
        positive = np.bitwise_and.reduce(packed[literals], axis=1)  # (|H_k|, W)
        ypos, yneg = pack_columns(y)[0], pack_columns(~y)[0]
        return int(y.sum()) - popcount_rows(positive & ypos) + popcount_rows(positive & yneg)

    return sample.cached(f"kconj_mistakes_{k}", compute)


def _realizable_class_size(cls: type, setting: dict) -> int | None:
    """|H_k| in the setting of a results row when the theorems apply (no label noise, a
    target of at most ``k`` literals), else None. ``k`` is the learner's (``lp_k``)."""
    k = setting.get("lp_k")
    k = cls.k if k is None or k != k else int(k)  # the field's default where the row has none
    if float(setting.get("noise", 0.0)) > 0 or int(setting["k"]) > k:
        return None
    return class_size(int(setting["d"]), k, bool(setting["monotone"]))


def _unsupported(target: Any, k: int) -> str | None:
    concept_class = getattr(target, "concept_class", None)
    if not isinstance(concept_class, ConjunctionClass):
        return "the problem's class is not conjunctions"
    size = class_size(concept_class.d, k, concept_class.monotone)
    if size > MAX_HYPOTHESES:
        return f"H_k has {size} hypotheses > {MAX_HYPOTHESES}"
    return None


@register_learner
@dataclass(frozen=True, kw_only=True)
class KConjERM(Learner):
    """ERM over conjunctions of at most ``k`` literals (first minimiser: a shortest one)."""

    name: ClassVar[str] = "kconj_erm"
    family: ClassVar[str] = "batch"
    problems: ClassVar[tuple[str, ...]] = ("conjunction",)
    k: int = 3

    def __post_init__(self) -> None:
        check_nonneg_int(self.k, name="k")

    def supports(self, target: Any) -> str | None:
        return _unsupported(target, self.k)

    @classmethod
    def theorem(cls, setting: dict) -> list[DeclaredRate]:
        """The Occam bound (realizable): error ≤ (ln|H_k| + ln(1/β))/n w.p. ≥ 1 − β."""
        size = _realizable_class_size(cls, setting)
        if size is None:
            return []
        log_terms = math.log(size) + math.log(1 / setting["beta"])
        return [DeclaredRate(
            "Occam bound (ln|H_k| + ln 1/β)/n", "bound", lambda n: log_terms / np.asarray(n, dtype=float),
            exponent=-1.0, citation="[BEHW87]", n_at=lambda a, e: log_terms / a + 0 * np.asarray(e, dtype=float),
        )]

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> Conjunction:
        d = sample.X.shape[1]
        index = int(np.argmin(class_mistakes(sample, self.k)))
        return hypothesis(short_conjunctions(d, self.k, sample.concept_class.monotone)[index], d)


@register_learner
@dataclass(frozen=True, kw_only=True)
class KConjNoisyMax(Learner):
    """Report noisy max over conjunctions of at most ``k`` literals; ε-DP, replace-one."""

    name: ClassVar[str] = "kconj_noisy_max"
    family: ClassVar[str] = "batch"
    private: ClassVar[bool] = True
    problems: ClassVar[tuple[str, ...]] = ("conjunction",)
    twin: ClassVar[str] = "kconj_erm"
    epsilon: float
    k: int = 3

    def __post_init__(self) -> None:
        normalise(self, epsilon=check_epsilon(self.epsilon))
        check_nonneg_int(self.k, name="k")

    @classmethod
    def test_params(cls) -> Iterator[dict]:
        yield {"epsilon": 1.0}
        yield {"epsilon": 1.0, "k": 1}
        yield {"epsilon": math.inf}

    def guarantee(self) -> Guarantee:
        return Guarantee(epsilon=self.epsilon, delta=0.0, neighbours=REPLACE_ONE)

    @classmethod
    def theorem(cls, setting: dict) -> list[DeclaredRate]:
        """The derived bound (realizable, module docstring): error ≤ 8 ln(2|H_k|/β)/(n·min(1, ε))
        w.p. ≥ 1 − β."""
        size = _realizable_class_size(cls, setting)
        if size is None:
            return []
        log_terms = 8 * math.log(2 * size / setting["beta"])
        scale = min(1.0, float(setting["epsilon"]))
        return [DeclaredRate(
            "noisy max, derived: 8 ln(2|H_k|/β)/(n·min(1, ε))", "bound",
            lambda n: log_terms / (scale * np.asarray(n, dtype=float)),
            exponent=-1.0, citation="[DR14, §3.3]",
            n_at=lambda a, e: log_terms / (a * np.minimum(1.0, np.asarray(e, dtype=float))),
        )]

    def noise_scale(self) -> float:
        """Laplace scale :math:`b = 2\\Delta/\\varepsilon` (0 at ε = ∞): the calibration."""
        return 2 * SENSITIVITY / self.epsilon

    def supports(self, target: Any) -> str | None:
        return _unsupported(target, self.k)

    def fit(self, sample: Sample, *, rng: np.random.Generator) -> Conjunction:
        d = sample.X.shape[1]
        scores = -class_mistakes(sample, self.k).astype(np.float64)
        scale = self.noise_scale()
        if scale > 0:
            scores = scores + rng.laplace(0.0, scale, size=scores.shape)
        index = int(np.argmax(scores))
        return hypothesis(short_conjunctions(d, self.k, sample.concept_class.monotone)[index], d)

    @classmethod
    def audit_cases(cls, *, epsilon: float, delta: float) -> list[AuditCase]:
        """The worst case of the privacy proof, on the smallest class that has it.

        Monotone ``d = 1``, ``k = 1``: :math:`H = \\{\\top, x_1\\}`. Every example has
        ``x = 0``; D has 5 positives and 1 negative, D' one positive replaced by a negative.
        The score gap :math:`u(\\top) - u(x_1) = \\#pos - \\#neg` moves from 4 to 2 — by
        :math:`2\\Delta`, the most one replacement can move it — so the event "output
        :math:`x_1`" has privacy loss :math:`\\ln S(2)/S(4)`, :math:`S` the tail of
        :math:`L_1 - L_2` (0.71ε at b = 2/ε, tending to ε deeper in the tail). The
        ``broken`` copy halves the noise scale and claims the same ε (loss ≈ 1.6ε)."""
        cases = []
        for variant, learner_cls in (("correct", cls), ("broken", _halved_noise(cls))):
            learner = learner_cls(epsilon=epsilon, k=1)
            pair = [_monotone_pair_side(positives) for positives in (5, 4)]

            def sample(side: int, runs: int, rng: np.random.Generator, learner=learner, pair=pair) -> np.ndarray:
                return np.array([int(learner.fit(pair[side], rng=rng).pos[0]) for _ in range(runs)])

            cases.append(
                AuditCase(
                    learner=cls.name, variant=variant, epsilon=epsilon, delta=0.0, neighbours=REPLACE_ONE,
                    instance="d=1 monotone k=1, x=0: 5 positives+1 negative vs 4+2 (score gap 4 -> 2)",
                    sample=sample, exact=lambda learner=learner: pair_epsilon(learner.noise_scale(), gap=4.0),
                )
            )
        return cases


def _halved_noise(cls: type) -> type:
    """A copy of ``cls`` with half the Laplace scale that still claims ε (audit's control)."""

    @dataclass(frozen=True, kw_only=True)
    class HalvedNoise(cls):
        def noise_scale(self) -> float:
            return super().noise_scale() / 2

    HalvedNoise.__name__ = HalvedNoise.__qualname__ = f"{cls.__name__}HalvedNoise"
    return HalvedNoise


def _monotone_pair_side(positives: int, n: int = 6) -> Sample:
    y = np.zeros(n, dtype=np.uint8)
    y[:positives] = 1
    return Sample(np.zeros((n, 1), dtype=np.uint8), y, concept_class=ConjunctionClass(d=1, monotone=True))


def laplace_difference_tail(t: float, b: float) -> float:
    """:math:`P[L_1 - L_2 > t]` for iid :math:`\\mathrm{Lap}(b)`:
    :math:`\\tfrac12 e^{-s}(1 + s/2)`, ``s = t/b``, for ``t ≥ 0`` (the density of the
    difference is :math:`(1 + |z|/b)e^{-|z|/b}/(4b)`), and ``1 − P[L_1 − L_2 > −t]`` below 0."""
    if t < 0:
        return 1 - laplace_difference_tail(-t, b)
    s = t / b
    return 0.5 * math.exp(-s) * (1 + s / 2)


def pair_epsilon(b: float, *, gap: float) -> float:
    """Exact ε of the audit pair: the largest |log-ratio| of the two outputs' probabilities
    when the score gap is ``gap`` on D and ``gap − 2Δ`` on D' (two hypotheses, Lap(b))."""
    if b == 0:
        return math.inf
    p, q = laplace_difference_tail(gap, b), laplace_difference_tail(gap - 2 * SENSITIVITY, b)
    return max(abs(math.log(q / p)), abs(math.log((1 - q) / (1 - p))))
