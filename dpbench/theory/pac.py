"""PAC learning over finite classes ([BEHW87]; [KLNRS11]; [DR14, §11.1]).

``log_class_size`` is ``ln|C|`` (``d ln 3`` for conjunctions with negations, ``d ln 2``
monotone). Functions return the error level α reached with probability ≥ 1 − β at sample
size ``n`` (a *bound*: the empirical (1−β)-quantile of the error should stay below it), or
an order-of-magnitude *shape* with unit constant where the source states only O(·).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpbench.mechanisms.composition import advanced_per_step
from dpbench.theory.declared import declared_rates

__all__ = [
    "rate_consistent",
    "n_finite_class",
    "rate_agnostic_erm",
    "rate_exp_mech_pac",
    "rate_exp_mech_realizable",
    "n_exp_mech_realizable",
    "rate_exp_mech_empirical",
    "rate_private_sq",
    "n_consistent",
    "n_exp_mech_pac",
    "private_sq_epsilon_per_query",
    "n_private_sq",
    "rate_private_sq_run",
    "n_private_sq_run",
    "trivial_error_conjunction",
    "ConjunctionRate",
    "conjunction_rates",
    "conjunction_rates_of",
    "trivial_error_of",
    "CONJUNCTIONS_BETA",
    "CONJUNCTIONS_ALPHA",
    "SQ_ALPHA",
]

#: The ``conjunctions`` experiment's constants, shared by its theory check and its figures:
#: failure probability of the high-probability bounds, the accuracy of n*(α), and the SQ
#: learners' default accuracy parameter (their ``alpha``, τ = α/(2m)).
CONJUNCTIONS_BETA = 0.1
CONJUNCTIONS_ALPHA = 0.01
SQ_ALPHA = 0.05

Array = npt.ArrayLike


def rate_consistent(n: Array, log_class_size: float, beta: float = 0.05) -> npt.NDArray:
    r"""Realizable, any consistent learner ([BEHW87]; [Val84]):
    :math:`P[\exists h \in C: err(h) > \alpha, h \text{ consistent}] \le |C|(1-\alpha)^n \le e^{\ln|C| - \alpha n}`,
    so with probability ≥ 1 − β the error is at most :math:`\alpha(n) = (\ln|C| + \ln(1/\beta))/n`
    (the course notes' statement [NotesPAC, Thm 1], :math:`n = 2\ln|C|/\alpha` is the case β = 1/|C|)."""
    return (log_class_size + np.log(1 / beta)) / np.asarray(n, dtype=float)


def rate_agnostic_erm(n: Array, log_class_size: float, beta: float = 0.05, opt: float = 0.0) -> npt.NDArray:
    r"""Agnostic ERM ([DR14, §11.1], Hoeffding + union bound):
    :math:`err(h) \le OPT + 2\sqrt{(\ln|C| + \ln(2/\beta)) / (2n)}` w.p. ≥ 1 − β
    ([DR14] states :math:`n \ge \ln|C|/\alpha^2` up to constants)."""
    return opt + 2 * np.sqrt((log_class_size + np.log(2 / beta)) / (2 * np.asarray(n, dtype=float)))


def rate_exp_mech_pac(n: Array, epsilon: Array, log_class_size: float) -> npt.NDArray:
    r"""Exponential-mechanism learner, realizable ([KLNRS11]; [NotesPAC, §1]):
    :math:`n \ge 8\ln|C| / (\alpha \min\{\alpha, \varepsilon\})` suffices, i.e.
    :math:`\alpha(n, \varepsilon) = \max\{8\ln|C|/(\varepsilon n),\ \sqrt{8\ln|C|/n}\}`
    ("accurate with high probability"; the failure probability is
    :math:`|C|e^{-\varepsilon\alpha n/4} + e^{\ln|C| - \alpha n/2}`)."""
    n = np.asarray(n, dtype=float)
    return np.maximum(8 * log_class_size / (np.asarray(epsilon, dtype=float) * n), np.sqrt(8 * log_class_size / n))


def rate_exp_mech_realizable(n: Array, epsilon: Array, log_class_size: float, beta: float = 0.05) -> npt.NDArray:
    r"""Exponential-mechanism learner, realizable, with the *multiplicative* Chernoff bound in
    the course notes' proof ([NotesPAC, §1]; derived here; they use the additive :math:`e^{-\alpha^2 n/2}`): a hypothesis
    with error > α has ≤ αn/2 sample mistakes w.p. ≤ :math:`e^{-\alpha n/8}`, and the mechanism
    outputs one with > αn/2 mistakes w.p. ≤ :math:`|C|e^{-\varepsilon\alpha n/4}`, so w.p. ≥ 1 − β

    .. math:: \alpha(n, \varepsilon) = \max\{8,\ 4/\varepsilon\}\,(\ln|C| + \ln(2/\beta))/n.

    Slope −1 in n for every ε, and n*(α) ∝ 1/ε while ε < ½ (flat above)."""
    n = np.asarray(n, dtype=float)
    return np.maximum(8.0, 4.0 / np.asarray(epsilon, dtype=float)) * (log_class_size + np.log(2 / beta)) / n


def n_exp_mech_realizable(alpha: Array, epsilon: Array, log_class_size: float, beta: float = 0.05) -> npt.NDArray:
    """Sample size at which :func:`rate_exp_mech_realizable` reaches α."""
    return np.maximum(8.0, 4.0 / np.asarray(epsilon, dtype=float)) * (log_class_size + np.log(2 / beta)) / np.asarray(alpha, dtype=float)


def rate_exp_mech_empirical(n: Array, epsilon: Array, log_class_size: float, beta: float = 0.05, opt: float = 0.0) -> npt.NDArray:
    r"""Exponential mechanism's *empirical* error ([MT07]; [DR14, §11.1], utility theorem):
    :math:`err_S(h) \le OPT_S + 2(\ln|C| + \ln(1/\beta))/(\varepsilon n)` w.p. ≥ 1 − β."""
    return opt + 2 * (log_class_size + np.log(1 / beta)) / (np.asarray(epsilon, dtype=float) * np.asarray(n, dtype=float))


def rate_private_sq(n: Array, epsilon: Array, m: int) -> npt.NDArray:
    r"""Private SQ learning with ``m`` queries answered by Laplace noise, shape only ([BDMN05]; [DR14, §11.1]):
    :math:`n = O(\max\{m\ln m/(\varepsilon\alpha),\ \ln m/\alpha^2\})`, i.e.
    :math:`\alpha \approx \max\{m\ln m/(\varepsilon n),\ \sqrt{\ln m/n}\}` (unit constants).
    Generic (tolerance-α queries): ``private_sq_conjunction`` asks at τ = α/(2m) and learns
    ~m/ln m times later — its own rate is :func:`rate_private_sq_run`."""
    n = np.asarray(n, dtype=float)
    return np.maximum(m * np.log(m) / (np.asarray(epsilon, dtype=float) * n), np.sqrt(np.log(m) / n))


def n_consistent(alpha: Array, log_class_size: float, beta: float = 0.05) -> npt.NDArray:
    """Sample size at which :func:`rate_consistent` reaches α."""
    return (log_class_size + np.log(1 / beta)) / np.asarray(alpha, dtype=float)


def n_finite_class(alpha: Array, log_class_size: Array, beta: float = 0.05) -> npt.NDArray:
    r"""Sufficient sample size of any consistent learner over a finite class C, realizable
    (L. G. Valiant, "A theory of the learnable", Commun. ACM 27(11), 1984; A. Blumer, A.
    Ehrenfeucht, D. Haussler and M. K. Warmuth, "Occam's Razor", Inf. Process. Lett. 24(6),
    1987, Thm 1), a *bound* with its constants:

    .. math:: n \ge \frac{\ln|C| + \ln(1/\beta)}{\ln\frac{1}{1-\alpha}}
              \quad\Longrightarrow\quad P[\mathrm{err}(\hat h) > \alpha] \le \beta.

    Derivation: a fixed h with err(h) > α labels n i.i.d. examples correctly with probability
    < (1 − α)ⁿ; a consistent learner errs by more than α only if some such h is consistent,
    so by the union bound P[err(ĥ) > α] < |C|(1 − α)ⁿ, which is ≤ β exactly when n is at
    least the right-hand side. (Since ln(1/(1 − α)) ≥ α this is at most
    :func:`n_consistent`'s (ln|C| + ln(1/β))/α, the form with (1 − α)ⁿ ≤ e^{−αn}.) The bound is
    on the error at the fixed size n, so the smallest size by which a share 1 − β of
    independent runs has reached α — the empirical n*(α) of :mod:`dpbench.theory_check.nstar`
    — is at most it, up to the sampling error of that order statistic."""
    alpha = np.asarray(alpha, dtype=float)
    return (np.asarray(log_class_size, dtype=float) + math.log(1 / beta)) / -np.log1p(-alpha)


def n_exp_mech_pac(alpha: Array, epsilon: Array, log_class_size: float) -> npt.NDArray:
    r""":math:`n(\alpha, \varepsilon) = 8\ln|C| / (\alpha \min\{\alpha, \varepsilon\})` ([NotesPAC, §1]): slope −1 in ε
    while ε < α, flat (the non-private rate) once ε ≥ α."""
    alpha = np.asarray(alpha, dtype=float)
    return 8 * log_class_size / (alpha * np.minimum(alpha, np.asarray(epsilon, dtype=float)))


def private_sq_epsilon_per_query(epsilon: float, m: int, delta: float = 0.0) -> float:
    """Budget ε₀ of each of the ``m`` Laplace-answered queries of ``private_sq_conjunction``:
    ε/m (basic composition, δ = 0) or the advanced-composition step for (ε, δ)
    (:func:`dpbench.mechanisms.composition.advanced_per_step`, the learner's own calibration)."""
    if math.isinf(epsilon):
        return math.inf
    if delta == 0:
        return epsilon / m

    return advanced_per_step(epsilon, m, delta)


def n_private_sq(epsilon_per_query: float, m: int, alpha: float, beta: float = 0.05) -> float:
    r"""Sample size from which ``private_sq_conjunction`` (tolerance :math:`\tau = \alpha/(2m)`,
    answers :math:`\hat a_\ell + \mathrm{Lap}(1/(\varepsilon_0 n))`) keeps every target literal
    with probability ≥ 1 − β/2: all ``m`` noises are below
    :math:`\zeta = \ln(2m/\beta)/(\varepsilon_0 n)` in absolute value w.p. ≥ 1 − β/2 (union
    bound over the two-sided Laplace tails :math:`P[|\mathrm{Lap}(b)| \ge \zeta] = e^{-\zeta/b}`),
    a target literal's answer is exactly 0 on a realizable sample, and :math:`\zeta < \tau` iff

    .. math:: n > n_0 = 2m\ln(2m/\beta)/(\varepsilon_0\alpha)
              \quad(= 2m^2\ln(2m/\beta)/(\varepsilon\alpha) \text{ with basic composition}).

    Derived here for the learner as run (half of β; the other half is the sampling step of
    :func:`rate_private_sq_run`). Dwork & Roth (2014, §11.1) state only
    :math:`O(m\ln m/(\varepsilon\alpha))` for a generic SQ learner, which predicts learning
    ~10× too early at m = 20: the tolerance α/(2m) costs a second factor m."""
    return 2 * m * math.log(2 * m / beta) / (epsilon_per_query * alpha)


def _sq_terms(m: int, epsilon_per_query, beta: float):
    r"""``(A, Z)`` of :func:`rate_private_sq_run`: the sampling term's
    :math:`A = 2(m\ln 2 + \ln(2/\beta))` and the noise term's
    :math:`Z = m\ln(2m/\beta)/\varepsilon_0` (0 without noise)."""
    eps0 = np.asarray(epsilon_per_query, dtype=float)
    with np.errstate(divide="ignore"):
        return 2 * (m * math.log(2) + math.log(2 / beta)), m * math.log(2 * m / beta) / eps0


def rate_private_sq_run(n: Array, epsilon_per_query: float, m: int, alpha: float, beta: float = 0.05) -> npt.NDArray:
    r"""Population error bound of ``private_sq_conjunction`` as run, with its constants
    (derived here; it holds w.p. ≥ 1 − β over the sample and the noise, realizable labels).

    For :math:`n > n_0` (:func:`n_private_sq`) every target literal is kept w.p. ≥ 1 − β/2,
    so the output h never accepts a negative, and it rejects a positive only where a kept
    literal is false: its empirical error is at most the sum of the kept literals' answers,
    each below :math:`\tau + \zeta` (the noisy answer is below τ and the noise above −ζ), so

    .. math:: \widehat{err}(h) \le e(n) = m(\tau + \zeta) = \alpha/2 + Z/n,
              \qquad Z = m\ln(2m/\beta)/\varepsilon_0.

    The step to the population: h is one of the :math:`2^m` sets of literals; for a fixed h
    of error p the multiplicative Chernoff bound gives
    :math:`P[\widehat{err}(h) \le p - t] \le e^{-nt^2/(2p)}`, so with a union bound over the
    :math:`2^m` sets, w.p. ≥ 1 − β/2 every h has :math:`p \le \widehat{err} + \sqrt{2pL/n}`
    with :math:`L = m\ln 2 + \ln(2/\beta)`; solving for :math:`\sqrt p`,

    .. math:: err(h) \le B(n) = \Bigl(\tfrac{a + \sqrt{a^2 + 4e(n)}}{2}\Bigr)^2,
              \qquad a = \sqrt{A/n},\ A = 2L.

    B(n) → α/2 as n grows (the tolerance's own cost); NaN (no guarantee) for :math:`n \le n_0`.
    The learner's tolerance rule is that of M. Kearns, "Efficient noise-tolerant learning
    from statistical queries", J. ACM 45(6), 1998; the Laplace answers those of A. Blum, C.
    Dwork, F. McSherry and K. Nissim, "Practical privacy: the SuLQ framework", PODS 2005."""
    n = np.asarray(n, dtype=float)
    n0 = n_private_sq(epsilon_per_query, m, alpha, beta)
    A, Z = _sq_terms(m, epsilon_per_query, beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = alpha / 2 + Z / n
        a = np.sqrt(A / n)
        value = ((a + np.sqrt(a * a + 4 * e)) / 2) ** 2
    return np.where(n > n0, value, np.nan)


def n_private_sq_run(alpha_target: Array, epsilon_per_query: Array, m: int, alpha: float, beta: float = 0.05) -> npt.NDArray:
    r"""Sample size at which :func:`rate_private_sq_run` reaches ``alpha_target`` = t (NaN if
    it never does, i.e. t ≤ α/2); at least :func:`n_private_sq`. B(n) = t is
    :math:`t - \sqrt{tA}\,u - Z u^2 = \alpha/2` in :math:`u = n^{-1/2}`, whose positive root is
    :math:`u = 2(t - \alpha/2)/(\sqrt{tA} + \sqrt{tA + 4Z(t - \alpha/2)})`."""
    t = np.asarray(alpha_target, dtype=float)
    eps0 = np.asarray(epsilon_per_query, dtype=float)
    A, Z = _sq_terms(m, eps0, beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = t - alpha / 2
        u = 2 * gap / (np.sqrt(t * A) + np.sqrt(t * A + 4 * Z * gap))
        n0 = 2 * m * math.log(2 * m / beta) / (eps0 * alpha)
        return np.where(gap > 0, np.maximum(1 / (u * u), n0), np.nan)


def trivial_error_conjunction(k: int, p: float, noise: float = 0.0, monotone: bool = False) -> float:
    r"""Error of the best constant predictor on the conjunction problem: with
    :math:`q = P[c(x) = 1] = p^k` (every target coordinate has :math:`P[x_i = 1] = p`; exact for
    monotone targets or p = ½, where negated literals have the same probability) and label
    noise η, :math:`\min(q', 1 - q')` with :math:`q' = q(1-\eta) + (1-q)\eta`. NaN when the
    value depends on the drawn literal signs (non-monotone, p ≠ ½)."""
    if not monotone and p != 0.5:
        return math.nan
    q = p**k
    q_noisy = q * (1 - noise) + (1 - q) * noise
    return float(min(q_noisy, 1 - q_noisy))


@dataclass(frozen=True)
class ConjunctionRate:
    """One theory curve of a conjunction learner: ``error(n)`` and ``n_at(alpha, epsilon)``
    (the sample complexity, None where not drawn), its ``kind`` (``bound`` counted, ``shape``
    drawn only), a legend ``label`` and whether it is the ``primary`` overlay (the one the
    theory check compares with) or the course notes' formula drawn beside it."""

    label: str
    kind: str
    error: object
    n_at: object = None
    primary: bool = True


def conjunction_rates(
    learner: str, *, epsilon: float, delta: float, d: int, monotone: bool, noise: float,
    log_class_size: float, alpha: float, beta: float,
) -> list[ConjunctionRate]:
    """The theory curves of a ``conjunctions`` learner in one setting.

    ``alpha`` is the SQ learners' accuracy parameter (τ = α/(2m)), ``beta`` the failure
    probability of the high-probability bounds. Realizable (``noise = 0``): the consistent
    learners' bound ([BEHW87]); the exponential mechanism's derived bound
    (:func:`rate_exp_mech_realizable`, primary) *and* [NotesPAC, §1]'s stated
    ``8 ln|C|/(α min(α, ε))`` (:func:`rate_exp_mech_pac`); the SQ shape; the private SQ
    learner's bound as run, with its constants (:func:`rate_private_sq_run`). Noisy labels: agnostic ERM
    (Hoeffding) for ``erm`` and the exponential mechanism (plus its empirical-risk term);
    ``elimination`` has no agnostic guarantee (empty list)."""
    m = d if monotone else 2 * d
    eps, logc = float(epsilon), float(log_class_size)
    if noise > 0:
        if learner == "erm":
            return [ConjunctionRate("agnostic ERM (Dwork & Roth 2014 §11.1)", "bound", lambda n: rate_agnostic_erm(n, logc, beta, opt=noise))]
        if learner == "exp_mech_erm":
            return [ConjunctionRate(
                "exp. mech., agnostic (Dwork & Roth 2014 §11.1)", "bound",
                lambda n: rate_exp_mech_empirical(n, eps, logc, beta, opt=noise) + rate_agnostic_erm(n, logc, beta),
            )]
        if learner in ("elimination", "private_sq_conjunction", "sq_conjunction"):
            return []
    if learner in ("elimination", "erm"):
        return [ConjunctionRate("Occam bound (ln|C| + ln 1/β)/n, any consistent learner (Blumer et al. 1987)", "bound", lambda n: rate_consistent(n, logc, beta), lambda a, e: n_consistent(a, logc, beta))]
    if learner == "exp_mech_erm":
        return [
            ConjunctionRate("exp. mech., derived (multiplicative Chernoff)", "bound",
                            lambda n: rate_exp_mech_realizable(n, eps, logc, beta),
                            lambda a, e: n_exp_mech_realizable(a, e, logc, beta)),
            ConjunctionRate("exp. mech., course notes' stated 8 ln|C|/(α min(α, ε))", "bound",
                            lambda n: rate_exp_mech_pac(n, eps, logc),
                            lambda a, e: n_exp_mech_pac(a, e, logc), primary=False),
        ]
    if learner == "sq_conjunction":  # the private learner's bound without noise (ε₀ = ∞: n₀ = 0, Z = 0)
        return [ConjunctionRate("SQ as run: bound with constants (derived)", "bound",
                                lambda n: rate_private_sq_run(n, math.inf, m, alpha, beta))]
    if learner == "private_sq_conjunction":
        eps0 = private_sq_epsilon_per_query(eps, m, delta)
        return [ConjunctionRate(
            "private SQ as run: bound with constants (derived), from n₀", "bound",
            lambda n: rate_private_sq_run(n, eps0, m, alpha, beta),
            lambda a, e: n_private_sq_run(a, np.asarray([private_sq_epsilon_per_query(float(x), m, delta) for x in np.atleast_1d(e)]), m, alpha, beta),
        )]
    return []


def conjunction_rates_of(learner: str, row, *, epsilon: float | None = None) -> list[ConjunctionRate]:
    """:func:`conjunction_rates` in the setting a results row records (problem parameters,
    ``log_class_size``, ε, δ, and the learner's ``alpha`` as ``lp_alpha`` when it was set),
    with β = :data:`CONJUNCTIONS_BETA`; ``epsilon`` overrides the row's. A learner the catalogue
    has no rate for gets the rates it declares (:func:`dpbench.theory.declared.declared_rates`)."""
    alpha = row.get("lp_alpha")
    return conjunction_rates(
        learner, epsilon=float(row["epsilon"] if epsilon is None else epsilon), delta=float(row["delta"]),
        d=int(row["d"]), monotone=bool(row["monotone"]), noise=float(row["noise"]),
        log_class_size=float(row["log_class_size"]),
        alpha=SQ_ALPHA if alpha is None or alpha != alpha else float(alpha), beta=CONJUNCTIONS_BETA,
    ) or declared_rates(learner, row, beta=CONJUNCTIONS_BETA, epsilon=epsilon)


def trivial_error_of(row) -> float:
    """:func:`trivial_error_conjunction` in the setting a results row records."""
    return trivial_error_conjunction(int(row["k"]), float(row["p"]), float(row["noise"]), bool(row["monotone"]))
