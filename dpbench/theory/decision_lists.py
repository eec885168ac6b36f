r"""Decision lists in the PAC model ([Riv87]; [BF26, §3 and Appendix A]).

``n_features`` is :math:`|F|`, the size of the feature class *including* the constant-true
function (for k-decision lists over ``d`` variables,
:math:`|F| = \sum_{i \le k} \binom{d}{i} 2^i \le (2d+1)^k`; monotone: :math:`\sum_{i\le k}\binom{d}{i}`).
``log_class_size`` is :math:`\ln|C|` of the class of F-decision lists, counted as every
sequence of distinct non-constant features with output bits followed by a default bit:
:math:`|C| = 2\sum_{j=0}^{m} \frac{m!}{(m-j)!} 2^j` with :math:`m = |F| - 1`, so
:math:`\ln|C| = \Theta(|F| \ln |F|)`.

Every rate returns the error level α at sample size ``n``. Kinds:

- *bound* (:func:`rate_rivest`): a proven high-probability upper bound (probability ≥ 1 − β);
- *shape* (the private rates): the source only states O(·), and the constants are
  **[reconstructed]** (the text of [BF26] available to us lost its formulas). They are
  drawn with unit constants and compared by slope, never counted as violations.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy.special import comb, gammaln, logsumexp

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
    "n_privdl_composition",
    "n_rivest",
    "privdl_lambda_value",
    "rate_privdl",
    "rate_privdl_composition",
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


def rate_privdl_kdl(n: Array, epsilon: Array, delta: float, d: int, k: int, beta: float = 0.1) -> npt.NDArray:
    r"""Corollary A.8 **[reconstructed]**: Theorem 3.5 with :math:`|F| \le (2d+1)^k`, i.e.
    :math:`n = \tilde O(d^k \log(1/\delta)/(\alpha\varepsilon))` — :func:`rate_privdl` at
    :math:`|F| = (2d+1)^k`."""
    return rate_privdl(n, epsilon, delta, (2 * d + 1) ** k, beta)


def rate_privdl_composition(n: Array, epsilon: Array, delta: float, n_features: int, beta: float = 0.1) -> npt.NDArray:
    r"""The ablation ``privdl_composition`` **[reconstructed]**, unit constants: each of the
    :math:`|F|` rounds runs the exponential mechanism with
    :math:`\varepsilon_0 = \varepsilon/\sqrt{8|F|\ln(1/\delta)}` (advanced composition), which
    errs on at most :math:`2(\ln(2|F|) + \ln(|F|/\beta))/\varepsilon_0` remaining examples per
    round (Prop. 2.1 and a union bound, as in [BF26, Lemma A.4]); summed over the rounds,

    .. math:: \alpha(n) = \frac{2|F|^{3/2}\sqrt{8\ln(1/\delta)}\,\ln(2|F|^2/\beta)}{\varepsilon n}
              + \frac{|F|\ln|F| + \ln(1/\beta)}{n}:

    exponent 3/2 in |F| instead of privdl's 1."""
    f = float(n_features)
    eps = np.asarray(epsilon, dtype=float)
    private = 2 * f**1.5 * math.sqrt(8 * math.log(1 / delta)) * math.log(2 * f * f / beta) / (eps * _n(n))
    return private + (f * math.log(f) + math.log(1 / beta)) / _n(n)


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


def n_privdl_composition(alpha: Array, epsilon: Array, delta: float, n_features: Array, beta: float = 0.1) -> npt.NDArray:
    """Sample size at which :func:`rate_privdl_composition` reaches α (vectorised over ε and |F|)."""
    f = np.asarray(n_features, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    private = 2 * f**1.5 * math.sqrt(8 * math.log(1 / delta)) * np.log(2 * f * f / beta) / (alpha * eps)
    return private + (f * np.log(f) + math.log(1 / beta)) / alpha


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
    - ``privdl``: Theorem 3.5's shape :func:`rate_privdl` **[reconstructed]**, unit constants;
    - ``privdl_composition``: :func:`rate_privdl_composition` (shape).

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
        return [Rate("Thm 3.5 shape, unit constants [reconstructed]", "shape", lambda n: rate_privdl(n, eps, dl, f, beta),
                     lambda a, e: n_privdl(a, e, dl, f, beta))]
    if learner == "privdl_composition":
        return [Rate("composition shape ∝ |F|^1.5, unit constants [reconstructed]", "shape", lambda n: rate_privdl_composition(n, eps, dl, f, beta),
                     lambda a, e: n_privdl_composition(a, e, dl, f, beta))]
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
