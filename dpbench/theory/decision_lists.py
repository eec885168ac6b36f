r"""Decision lists in the PAC model ([Riv87]; [BF26, §3 and Appendix A]).

``n_features`` is :math:`|F|`, the size of the feature class *including* the constant-true
function (for k-decision lists over ``d`` variables,
:math:`|F| = \sum_{i \le k} \binom{d}{i} 2^i \le (2d+1)^k`; monotone: :math:`\sum_{i\le k}\binom{d}{i}`).
``log_class_size`` is :math:`\ln|C|` of the class of F-decision lists, counted as every
sequence of distinct non-constant features with output bits followed by a default bit:
:math:`|C| = 2\sum_{j=0}^{m} \frac{m!}{(m-j)!} 2^j` with :math:`m = |F| - 1`, so
:math:`\ln|C| = \Theta(|F| \ln |F|)`.

Every rate returns the error level α at sample size ``n``. Kinds:

- *bound* (:func:`rate_rivest`; privdl's and privdl_composition's rates as run,
  :func:`rate_privdl_run` and :func:`rate_privdl_composition_run`, derived here with their
  constants from [BF26, Lemma A.4] at each learner's own selection rate): a proven
  high-probability upper bound (probability ≥ 1 − β);
- *shape* (Theorem 3.5 and Corollary A.8, :func:`rate_privdl`, :func:`rate_privdl_kdl`): the
  source only states O(·), and the constants are **[reconstructed]** (the text of [BF26]
  available to us lost its formulas). They are drawn with unit constants and compared by
  slope, never counted as violations.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy.special import comb, gammaincinv, gammaln, logsumexp

from dpbench.mechanisms.composition import advanced_per_step
from dpbench.theory.declared import declared_rates
from dpbench.theory.pac import ConjunctionRate as Rate  # one curve: error(n), n_at(α, ε), kind, label
from dpbench.theory.pac import n_exp_mech_pac, n_exp_mech_realizable, rate_exp_mech_pac, rate_exp_mech_realizable

__all__ = [
    "DL_ALPHA",
    "DL_BETA",
    "dl_feature_count",
    "dl_rates",
    "dl_rates_of",
    "dl_log_class_size",
    "n_privdl",
    "n_rivest",
    "privdl_lambda_value",
    "rate_privdl",
    "privdl_selection_rate",
    "privdl_empirical_mistakes",
    "n_privdl_run",
    "covering_mistakes",
    "n_covering",
    "privdl_composition_round_epsilon",
    "privdl_composition_selection_rate",
    "privdl_composition_mistakes",
    "n_privdl_composition_run",
    "rate_privdl_composition_run",
    "rate_privdl_run",
    "rate_privdl_kdl",
    "rate_rivest",
]

Array = npt.ArrayLike

#: Failure probability of the high-probability bounds, and the accuracy target of n*(α)
#: (the ``decision_lists`` experiment's theory check and figures).
DL_BETA = 0.1
DL_ALPHA = 0.05


def dl_feature_count(d: int, k: int, monotone: bool = False) -> int:
    r""":math:`|F| = \sum_{i=0}^{k} \binom{d}{i}\, 2^i` (conjunctions of at most ``k`` literals on
    distinct variables; ``i = 0`` is the constant-true function), or
    :math:`\sum_{i\le k}\binom{d}{i}` for monotone terms ([BF26, Prop. A.9]:
    :math:`|F| \le (2d+1)^k`)."""
    return int(sum(comb(d, i, exact=True) * (1 if monotone else 2**i) for i in range(k + 1)))


def dl_log_class_size(n_features: int) -> float:
    r""":math:`\ln|C|` of F-decision lists, :math:`|C| = 2\sum_{j=0}^{m} \frac{m!}{(m-j)!}2^j`,
    :math:`m = |F|-1` (lists of distinct non-constant features with bits, then a default
    bit; the constant-true rule is the default). Computed in log space (lgamma)."""
    m = int(n_features) - 1
    j = np.arange(m + 1)
    terms = gammaln(m + 1) - gammaln(m - j + 1) + j * math.log(2)
    return float(math.log(2) + logsumexp(terms))


def privdl_lambda_value(epsilon: float, delta: float) -> float:
    r"""The set-cover calibration for add/remove neighbours **[reconstructed]**
    ([BF26, Lemma A.1]; [GLMRT10]): :math:`\lambda = \varepsilon / (2\ln(e/\delta))`."""
    if math.isinf(epsilon):
        return math.inf
    return epsilon / (2 * math.log(math.e / delta))


def _n(n: Array) -> npt.NDArray:
    return np.asarray(n, dtype=float)


def rate_rivest(n: Array, n_features: int, beta: float = 0.1) -> npt.NDArray:
    r"""Occam bound for any consistent learner over F-decision lists ([Riv87]; [BEHW87]
    Theorem 1's argument): with probability ≥ 1 − β, :math:`\alpha(n) = (\ln|C| + \ln(1/\beta))/n`,
    :math:`\ln|C|` from :func:`dl_log_class_size` (= :math:`O(|F|\ln|F|)`, [BF26, §3]'s
    :math:`n = O((|F|\log|F| + \log(1/\beta))/\alpha)`). A proven bound in the realizable case."""
    return (dl_log_class_size(n_features) + math.log(1 / beta)) / _n(n)


def rate_privdl(n: Array, epsilon: Array, delta: float, n_features: int, beta: float = 0.1) -> npt.NDArray:
    r"""Theorem 3.5's shape **[reconstructed]** ([BF26, Thm 3.5]), unit constants:

    .. math:: \alpha(n) = \frac{|F|\,\ln(|F|/\beta)\,\ln(1/\delta)}{\varepsilon n}
              + \frac{|F|\ln|F| + \ln(1/\beta)}{n}.

    Exponents: −1 in n, −1 in ε, 1 (times logs) in |F|."""
    f = float(n_features)
    eps = np.asarray(epsilon, dtype=float)
    private = f * math.log(f / beta) * math.log(1 / delta) / (eps * _n(n))
    return private + (f * math.log(f) + math.log(1 / beta)) / _n(n)


def privdl_replace_one_delta(epsilon: float, delta: float) -> float:
    """δ' of the add/remove analysis behind a replace-one target (ε, δ): group privacy of two
    add/remove steps at (ε/2, δ') gives (ε, (1 + e^{ε/2}) δ'), so δ' = δ/(1 + e^{ε/2})."""
    return delta / (1 + math.exp(epsilon / 2))


def privdl_selection_rate(epsilon: Array, delta: float, add_remove: bool = False) -> npt.NDArray:
    r"""The λ privdl runs its exponential mechanism with (``P ∝ exp(λ q)``) for a target
    (ε, δ) **[reconstructed]**: :func:`privdl_lambda_value` at (ε, δ) for add/remove neighbours;
    for replace-one at (ε/2, :func:`privdl_replace_one_delta`), i.e.
    :math:`\lambda = \varepsilon / (4\ln(e(1 + e^{\varepsilon/2})/\delta))` — the same two
    functions the learner's calibration calls (vectorised over ε; ε = ∞ gives λ = ∞)."""
    eps = np.asarray(epsilon, dtype=float)

    def one(e: float) -> float:
        if math.isinf(e):
            return math.inf
        return privdl_lambda_value(e, delta) if add_remove else privdl_lambda_value(e / 2, privdl_replace_one_delta(e, delta))

    return np.array([one(float(e)) for e in eps.ravel()], dtype=float).reshape(eps.shape)


def covering_mistakes(lam: Array, n_features: Array, beta: float = 0.1) -> npt.NDArray:
    r"""K: with probability ≥ 1 − β/2, the exponential-mechanism covering loop of privdl and of its
    composition ablation, run at selection rate λ (every round draws ``P ∝ exp(λ q)``), errs on
    at most K examples of its own sample (realizable), a bound with its constants:

    .. math:: K = \frac{|F|\,\ln(2|F|) + \Gamma^{-1}_{|F|}(1 - \beta/2)}{\lambda},

    :math:`\Gamma^{-1}_{|F|}` the quantile function of a Gamma(|F|, 1) variable (≈ |F| + 1.6√|F|).

    Derivation (the utility half of Mark Bun and William Fang, "Privately Learning Decision Lists and
    a Differentially Private Winnow", arXiv:2602.07370, 2026, Lemma A.4, with the constants carried):
    by their Proposition 3.3 the remaining sample S_i of every round is labelled by a decision
    list over the remaining features, so its first rule (f, b) has score q(f, b) = 0 (the
    constant-true function is a feature). The exponential mechanism draws a pair with score
    ≤ −t with probability at most (#pairs)·e^{−λt}/e^{0} ≤ 2|F| e^{−λt} (F. McSherry and K. Talwar,
    "Mechanism Design via Differential Privacy", FOCS 2007, Thm 8's argument), whatever the earlier
    rounds drew; the chosen rule errs on exactly −q examples of S_i, and those are the only examples
    it classifies. So, given the past, round i's mistakes X_i satisfy
    P[X_i ≥ t] ≤ min(1, 2|F|e^{−λt}) = P[t₀ + Y_i/λ ≥ t] with t₀ = ln(2|F|)/λ and Y_i ~ Exp(1)
    independent: X_i is stochastically dominated by t₀ + Y_i/λ conditionally on the earlier rounds,
    hence the sum over the at most |F| rounds (each removes a feature) by |F|t₀ + Gamma(|F|, 1)/λ,
    whose (1 − β/2)-quantile is K. (Summing the rounds this way, rather than a union bound making
    every round err on fewer than ln(4|F|²/β)/λ, halves K at |F| = 33.) Only λ depends on the
    privacy accounting: :func:`privdl_empirical_mistakes` (set cover) and
    :func:`privdl_composition_mistakes` (composition) call this with their own λ. λ = ∞ (ε = ∞): K = 0."""
    f = np.asarray(n_features, dtype=float)
    with np.errstate(divide="ignore"):
        return (f * np.log(2 * f) + gammaincinv(f, 1 - beta / 2)) / np.asarray(lam, dtype=float)


def n_covering(alpha: Array, mistakes: Array, n_features: Array, beta: float = 0.1,
               log_class_size: Array | None = None) -> npt.NDArray:
    r"""Sufficient sample size of a learner whose output list h ∈ C errs, with probability
    ≥ 1 − β/2, on at most K = ``mistakes`` examples of its sample (realizable): with probability
    ≥ 1 − β its population error is ≤ α once

    .. math:: n \ge \frac{K + L + \sqrt{L^2 + 2KL}}{\alpha},\qquad L = \ln|C| + \ln(2/\beta),

    ln|C| from :func:`dl_log_class_size`. Derivation: a fixed list with error > α errs on
    X ~ Bin(n, > α) examples, and by the multiplicative Chernoff bound P[X ≤ K] ≤ exp(−(μ − K)²/(2μ))
    with μ = nα > K (H. Chernoff, Ann. Math. Statist. 23(4), 1952; the form of M. Mitzenmacher and
    E. Upfal, *Probability and Computing*, 2005, Thm 4.5); a union bound over C makes it ≤ β/2 when
    (μ − K)² ≥ 2μL, i.e. μ ≥ K + L + √(L² + 2KL) — the generalisation step of Bun & Fang's
    Theorem 3.5 (their Theorem A.6 quotes the VC bound of Blumer, Ehrenfeucht, Haussler and
    Warmuth, J. ACM 36(4), 1989, whose constants the text available to us lost; the finite-class
    union bound replaces it)."""
    f = np.asarray(n_features, dtype=float)
    logc = np.vectorize(dl_log_class_size)(f) if log_class_size is None else np.asarray(log_class_size, dtype=float)
    K = np.asarray(mistakes, dtype=float)
    L = logc + math.log(2 / beta)
    return (K + L + np.sqrt(L * L + 2 * K * L)) / np.asarray(alpha, dtype=float)


def privdl_empirical_mistakes(epsilon: Array, delta: float, n_features: Array, beta: float = 0.1) -> npt.NDArray:
    r""":func:`covering_mistakes` at privdl's λ (:func:`privdl_selection_rate`, replace-one):
    with probability ≥ 1 − β/2 privdl errs on at most
    :math:`K = (|F|\ln(2|F|) + \Gamma^{-1}_{|F|}(1-\beta/2))/\lambda` examples of its own sample
    (realizable)."""
    return covering_mistakes(privdl_selection_rate(epsilon, delta), n_features, beta)


def n_privdl_run(alpha: Array, epsilon: Array, delta: float, n_features: Array, beta: float = 0.1,
                 log_class_size: Array | None = None) -> npt.NDArray:
    r"""Sufficient sample size of privdl as run (replace-one λ, realizable), a *bound* with its
    constants: :func:`n_covering` at K = :func:`privdl_empirical_mistakes`, i.e. with probability
    ≥ 1 − β its population error is ≤ α once

    .. math:: n \ge \frac{K + L + \sqrt{L^2 + 2KL}}{\alpha},\qquad L = \ln|C| + \ln(2/\beta),
              \qquad K = \frac{|F|\ln(2|F|) + \Gamma^{-1}_{|F|}(1-\beta/2)}{\lambda}.

    Exponents: −1 in α; in ε, −1 up to the ln(1/δ′) in λ; |F|·ln|F|·ln(1/δ)/ε
    as in Bun & Fang's Theorem 3.5's Õ(|F| log(1/δ)/(αε))."""
    mistakes = privdl_empirical_mistakes(epsilon, delta, n_features, beta)
    return n_covering(alpha, mistakes, n_features, beta, log_class_size)


def rate_privdl_run(n: Array, epsilon: Array, delta: float, n_features: int, beta: float = 0.1,
                    log_class_size: float | None = None) -> npt.NDArray:
    """The error level :func:`n_privdl_run`'s bound guarantees at sample size ``n``
    (probability ≥ 1 − β): (K + L + √(L² + 2KL))/n."""
    return n_privdl_run(1.0, epsilon, delta, n_features, beta, log_class_size) / _n(n)


def privdl_composition_round_epsilon(epsilon: float, delta: float, n_features: int) -> float:
    r"""ε₀ of each of the |F| rounds of ``privdl_composition`` for a total (ε, δ) (the learner's
    calibration calls this): for δ > 0 the larger of ε/|F| (basic composition) and the largest
    ε₀ with

    .. math:: \varepsilon_0\sqrt{2|F|\ln(1/\delta)} + |F|\,\varepsilon_0(e^{\varepsilon_0} - 1) \le \varepsilon

    (advanced composition: C. Dwork, G. N. Rothblum and S. Vadhan, "Boosting and Differential
    Privacy", FOCS 2010, Thm III.3; :func:`dpbench.mechanisms.composition.advanced_per_step`);
    for δ = 0, ε/|F|. ε = ∞ gives ∞."""
    if math.isinf(epsilon):
        return math.inf
    if delta == 0:
        return epsilon / n_features
    return advanced_per_step(epsilon, int(n_features), delta)


def privdl_composition_selection_rate(epsilon: Array, delta: float, n_features: Array) -> npt.NDArray:
    r"""The λ ``privdl_composition`` draws with (``P ∝ exp(λ q)``): λ = ε₀/2, ε₀ from
    :func:`privdl_composition_round_epsilon` (each round is the exponential mechanism
    ``exp(ε₀ q/2)`` with score sensitivity 1), vectorised over ε and |F|."""
    eps, f = np.broadcast_arrays(np.asarray(epsilon, dtype=float), np.asarray(n_features, dtype=float))
    lam = [privdl_composition_round_epsilon(float(e), delta, int(round(v))) / 2 for e, v in zip(eps.ravel(), f.ravel())]
    return np.array(lam, dtype=float).reshape(eps.shape)


def privdl_composition_mistakes(epsilon: Array, delta: float, n_features: Array, beta: float = 0.1) -> npt.NDArray:
    r""":func:`covering_mistakes` at ``privdl_composition``'s λ = ε₀/2
    (:func:`privdl_composition_selection_rate`): with probability ≥ 1 − β/2 it errs on at most

    .. math:: K = \frac{2(|F|\ln(2|F|) + \Gamma^{-1}_{|F|}(1-\beta/2))}{\varepsilon_0}
              \approx \frac{2\sqrt{2}\,|F|^{3/2}\sqrt{\ln(1/\delta)}\,(\ln(2|F|) + 1)}{\varepsilon}

    examples of its own sample (the approximation for small ε₀ and large |F|, where advanced
    composition gives ε₀ ≈ ε/√(2|F| ln(1/δ)); δ = 0: ε₀ = ε/|F|). Bun & Fang's Lemma A.4
    argument is the same as privdl's; only the per-round budget differs."""
    return covering_mistakes(privdl_composition_selection_rate(epsilon, delta, n_features), n_features, beta)


def n_privdl_composition_run(alpha: Array, epsilon: Array, delta: float, n_features: Array, beta: float = 0.1,
                             log_class_size: Array | None = None) -> npt.NDArray:
    r"""Sufficient sample size of ``privdl_composition`` as run, a *bound* with its constants
    (realizable): :func:`n_covering` at K = :func:`privdl_composition_mistakes`, i.e. with
    probability ≥ 1 − β its population error is ≤ α once

    .. math:: n \ge \frac{K + L + \sqrt{L^2 + 2KL}}{\alpha},\qquad L = \ln|C| + \ln(2/\beta),
              \qquad K = \frac{2(|F|\ln(2|F|) + \Gamma^{-1}_{|F|}(1-\beta/2))}{\varepsilon_0}.

    The derivation of :func:`n_privdl_run` (Mark Bun and William Fang, "Privately Learning Decision
    Lists and a Differentially Private Winnow", arXiv:2602.07370, 2026, Lemma A.4 per round, a union
    sum over the |F| rounds, then a multiplicative Chernoff bound and a union bound over C) at the
    ablation's per-round budget ε₀ instead of the set-cover λ. Exponents: −1 in α; −1 in ε
    (while ε₀ ≪ 1); |F|^{3/2} ln|F| (δ > 0) or |F|² ln|F| (δ = 0) in |F|, against privdl's |F| ln|F|."""
    mistakes = privdl_composition_mistakes(epsilon, delta, n_features, beta)
    return n_covering(alpha, mistakes, n_features, beta, log_class_size)


def rate_privdl_composition_run(n: Array, epsilon: Array, delta: float, n_features: int, beta: float = 0.1,
                                log_class_size: float | None = None) -> npt.NDArray:
    """The error level :func:`n_privdl_composition_run`'s bound guarantees at sample size ``n``
    (probability ≥ 1 − β): (K + L + √(L² + 2KL))/n."""
    return n_privdl_composition_run(1.0, epsilon, delta, n_features, beta, log_class_size) / _n(n)


def rate_privdl_kdl(n: Array, epsilon: Array, delta: float, d: int, k: int, beta: float = 0.1) -> npt.NDArray:
    r"""Corollary A.8 **[reconstructed]**: Theorem 3.5 with :math:`|F| \le (2d+1)^k`, i.e.
    :math:`n = \tilde O(d^k \log(1/\delta)/(\alpha\varepsilon))` — :func:`rate_privdl` at
    :math:`|F| = (2d+1)^k`."""
    return rate_privdl(n, epsilon, delta, (2 * d + 1) ** k, beta)


def n_rivest(alpha: Array, n_features: int, beta: float = 0.1) -> npt.NDArray:
    """Sample size at which :func:`rate_rivest` reaches α."""
    return (dl_log_class_size(n_features) + math.log(1 / beta)) / np.asarray(alpha, dtype=float)


def n_privdl(alpha: Array, epsilon: Array, delta: float, n_features: Array, beta: float = 0.1) -> npt.NDArray:
    r"""Theorem 3.5 **[reconstructed]**, unit constants:
    :math:`n = |F|\ln(|F|/\beta)\ln(1/\delta)/(\alpha\varepsilon) + (|F|\ln|F| + \ln(1/\beta))/\alpha`
    (vectorised over ε and |F|)."""
    f = np.asarray(n_features, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    return f * np.log(f / beta) * math.log(1 / delta) / (alpha * eps) + (f * np.log(f) + math.log(1 / beta)) / alpha


def dl_rates(
    learner: str, *, epsilon: float, delta: float, n_features: int, log_class_size: float, noise: float,
    beta: float = DL_BETA,
) -> list[Rate]:
    r"""The theory curves of a ``decision_lists`` learner in one setting.

    Realizable (``noise = 0``) only — none of the rates below covers label noise:

    - ``rivest``, ``erm``: Occam bound :func:`rate_rivest` (a bound, probability ≥ 1 − β);
    - ``exp_mech_erm`` over whole lists: the bound derived with the multiplicative Chernoff
      step (:func:`~dpbench.theory.pac.rate_exp_mech_realizable`, primary, compared with the
      data) beside [NotesPAC, §1]'s stated :math:`8\ln|C|/(\alpha\min(\alpha,\varepsilon))`
      (:func:`~dpbench.theory.pac.rate_exp_mech_pac`, drawn, labelled);
    - ``privdl``: the bound of the learner as run, derived with constants (:func:`n_privdl_run`,
      primary, compared with the data) beside Theorem 3.5's shape :func:`rate_privdl`
      **[reconstructed]**, unit constants (drawn, labelled);
    - ``privdl_composition``: the bound of the ablation as run, the same derivation at its per-round
      budget from composition (:func:`n_privdl_composition_run`; δ = 0 is its basic composition).

    ``delta`` ≤ 0 (a pure-DP row) is read as 10⁻⁶ in the (ε, δ) shapes."""
    if noise > 0:
        return []
    eps, f, logc = float(epsilon), int(n_features), float(log_class_size)
    dl = delta if delta > 0 else 1e-6
    if learner in ("rivest", "erm"):
        return [Rate("Occam bound (ln|C| + ln 1/β)/n", "bound", lambda n: rate_rivest(n, f, beta), lambda a, e: n_rivest(a, f, beta) * np.ones_like(np.asarray(e, dtype=float)))]
    if learner == "exp_mech_erm":
        return [
            Rate("exp. mech., derived (multiplicative Chernoff)", "bound", lambda n: rate_exp_mech_realizable(n, eps, logc, beta),
                 lambda a, e: n_exp_mech_realizable(a, e, logc, beta)),
            Rate("exp. mech., course notes' stated 8 ln|C|/(α min(α, ε))", "bound", lambda n: rate_exp_mech_pac(n, eps, logc),
                 lambda a, e: n_exp_mech_pac(a, e, logc), primary=False),
        ]
    if learner == "privdl":
        return [
            Rate("privdl as run: Lemma A.4, derived with constants", "bound",
                 lambda n: rate_privdl_run(n, eps, dl, f, beta, logc), lambda a, e: n_privdl_run(a, e, dl, f, beta, logc)),
            Rate("Thm 3.5 shape, unit constants [reconstructed]", "shape", lambda n: rate_privdl(n, eps, dl, f, beta),
                 lambda a, e: n_privdl(a, e, dl, f, beta), primary=False),
        ]
    if learner == "privdl_composition":
        dc = max(float(delta), 0.0)  # the learner's own δ: 0 is basic composition, not a stand-in
        label = "privdl_composition as run: Lemma A.4 at its composition budget, derived with constants"
        return [Rate(label, "bound", lambda n: rate_privdl_composition_run(n, eps, dc, f, beta, logc),
                     lambda a, e: n_privdl_composition_run(a, e, dc, f, beta, logc))]
    return []


def dl_rates_of(learner: str, row, *, epsilon: float | None = None, n_features: int | None = None) -> list[Rate]:
    """:func:`dl_rates` in the setting a results row records (``n_features``,
    ``log_class_size``, ``noise``, ε, δ); ``epsilon`` / ``n_features`` override the row's
    (``log_class_size`` then follows |F|)."""
    f = int(row["n_features"] if n_features is None else n_features)
    delta = float(row["delta"]) if row["delta"] == row["delta"] else 0.0
    return dl_rates(
        learner, epsilon=float(row["epsilon"] if epsilon is None else epsilon), delta=delta, n_features=f,
        log_class_size=float(row["log_class_size"]) if n_features is None else dl_log_class_size(f),
        noise=float(row["noise"]),
    ) or declared_rates(learner, row, beta=DL_BETA, epsilon=epsilon)
