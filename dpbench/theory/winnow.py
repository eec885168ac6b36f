"""Online learning of large-margin halfspaces ([Lit88]; [BF26, §4]).

Setting: ``x ∈ [−1,1]^N``, target ``u ≥ 0``, ``‖u‖₁ = 1``, margin ``y⟨u,x⟩ ≥ ρ``. Bounds
count mistakes over the whole (infinite) stream; *bound* = proven worst-case (the
empirical (1−β)-quantile must stay below), *shape* = O(·) with unit constants.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "winnow_mistake_bound",
    "confident_winnow_update_bound",
    "perceptron_mistake_bound",
    "dp_winnow_mistake_shape",
    "dp_winnow_calibrated_bound",
    "private_online_lower_bound_shape",
    "dl_halfspace_margin",
    "MEANINGFUL_EPSILON",
]

#: The largest ε at which an (ε, δ)-DP guarantee is read as privacy in this project's figures
#: and captions: it bounds how much likelier an output is on one stream than on its neighbour by
#: e^ε (≈ 2.2·10⁴ at ε = 10, ≈ 5·10⁸ at ε = 20). The source's DP-Winnow rule (``dp_winnow``)
#: learns only above it (config/paper.yaml): those runs locate where it starts to learn.
MEANINGFUL_EPSILON = 10.0

Array = npt.ArrayLike


def winnow_mistake_bound(n_features: Array, rho: Array, eta: Array | None = None) -> npt.NDArray:
    r"""Winnow (Littlestone 1988; Mohri et al. 2018 Thm 8.6 form), a *bound*:

    .. math:: M \le \frac{\ln N}{\eta\rho - \eta^2/2} = \frac{2\ln N}{\rho^2}\quad(\eta = \rho).
    """
    N = np.asarray(n_features, dtype=float)
    rho = np.asarray(rho, dtype=float)
    eta = rho if eta is None else np.asarray(eta, dtype=float)
    return np.log(N) / (eta * rho - eta**2 / 2)


def confident_winnow_update_bound(n_features: Array, rho: Array, eta: Array | None = None, gamma: Array | None = None) -> npt.NDArray:
    r"""ConfidentWinnow's update bound (the statement of [BF26, Lemma 4.2]; the constants
    derived here), a proven *bound* on updates and hence on mistakes:

    .. math:: U \le \frac{\ln N}{\eta(\rho-\gamma) - \eta^2/2} = \frac{8\ln N}{\rho^2}\quad(\eta=\gamma=\rho/2).

    Derivation (the relative-entropy potential of Littlestone's Winnow analysis, as extended
    for DP-Winnow in :mod:`dpbench.learners.dp_winnow`): let u ≥ 0, ‖u‖₁ = 1, with
    y⟨u, x⟩ ≥ ρ on every example, |x_i| ≤ 1, w₁ uniform and Φ_t = KL(u ‖ w_t) =
    Σ u_i ln(u_i/w_{t,i}), so Φ₁ ≤ ln N and Φ ≥ 0. An update (made iff y⟨w_t, x_t⟩ < γ, in
    particular on every mistake, y⟨w, x⟩ ≤ 0) sets w_{t+1,i} = w_{t,i} e^{ηyx_i}/Z_t, and

    .. math:: Φ_{t+1} - Φ_t = \ln Z_t - \eta y\langle u, x\rangle \le \ln Z_t - \eta\rho.

    Z_t = E_{i∼w_t}[e^{ηZ}] with Z = y x_i ∈ [−1, 1], so Hoeffding's lemma
    (ln E e^{ηZ} ≤ η E Z + η²(b − a)²/8 with b − a = 2) gives
    ln Z_t ≤ η y⟨w_t, x⟩ + η²/2 < ηγ + η²/2. Every update lowers Φ by more than
    η(ρ − γ) − η²/2, which at η = γ = ρ/2 is ρ²/8; Φ starts at ≤ ln N and stays ≥ 0, so
    U < 8 ln N/ρ². This is the rule :mod:`dpbench.learners.confident_winnow` runs (and
    ``dp_winnow`` at ε = ∞), so the bound holds for it deterministically on a stream of
    margin ρ."""
    N = np.asarray(n_features, dtype=float)
    rho = np.asarray(rho, dtype=float)
    eta = rho / 2 if eta is None else np.asarray(eta, dtype=float)
    gamma = rho / 2 if gamma is None else np.asarray(gamma, dtype=float)
    return np.log(N) / (eta * (rho - gamma) - eta**2 / 2)


def perceptron_mistake_bound(n_features: Array, rho: Array) -> npt.NDArray:
    r"""Perceptron (Novikoff 1962), a *bound*: :math:`(R/\rho_2)^2` with :math:`R = \sqrt N`
    and ℓ2 margin :math:`\rho_2 \ge \rho/\|u\|_2 \ge \rho` (since :math:`\|u\|_2 \le \|u\|_1 = 1`):

    .. math:: M \le N/\rho^2.
    """
    return np.asarray(n_features, dtype=float) / np.asarray(rho, dtype=float) ** 2


def dp_winnow_mistake_shape(n_features: Array, rho: Array, epsilon: Array, delta: float, T: Array, beta: float = 0.1) -> npt.NDArray:
    r"""DP-Winnow ([BF26, Thm 4.5], **[reconstructed]** agreed overlay), a *shape*:

    .. math:: \frac{\ln^{1.5} N\,\sqrt{\ln(1/\delta)}\,\ln(T/\beta)}{\varepsilon\,\rho^3}.
    """
    N = np.asarray(n_features, dtype=float)
    return np.log(N) ** 1.5 * np.sqrt(np.log(1 / delta)) * np.log(np.asarray(T, dtype=float) / beta) / (np.asarray(epsilon, dtype=float) * np.asarray(rho, dtype=float) ** 3)


def dp_winnow_calibrated_bound(M: Array, threshold: Array, batch: Array = 1) -> npt.NDArray:
    r"""Mistake *bound* of a calibrated DP-Winnow run (w.p. ≥ 1 − β; [BF26, proof of Thm 4.5] with the
    run's own constants, :mod:`dpbench.learners.dp_winnow`): at most ``M`` firings, and
    within each of the ≤ M + 1 epochs every mistake is cached, and the sparse vector has
    fired by the time ``L + α + 1`` are cached, where ``L = B + α`` (``batch`` B, the
    examples summed into one update; B = 1 is [BF26]'s rule):

    .. math:: \text{mistakes} \le (M + 1)(L + \alpha + 1) = (M + 1)(2L - B + 1).

    ``batch = 1`` (the default) is valid, and looser, for every B ≥ 1.
    """
    L = np.asarray(threshold, dtype=float)
    return (np.asarray(M, dtype=float) + 1) * (2 * L - np.asarray(batch, dtype=float) + 1)


def private_online_lower_bound_shape(T: Array, epsilon: Array) -> npt.NDArray:
    r"""Lower bound for private online learning (Cohen et al. 2024 [CLNSS24] via point functions
    embedded as margin-1/2 halfspaces, [BF26, §4.4]), a *shape*: :math:`\ln T/\varepsilon`."""
    return np.log(np.asarray(T, dtype=float)) / np.asarray(epsilon, dtype=float)


def dl_halfspace_margin(l: Array) -> npt.NDArray:  # noqa: E741
    r"""Margin of a length-l decision list as a halfspace ([BF26, Lemma 4.10], **[reconstructed]**):
    :math:`\rho = 1/(2^{l+1} - 1)`."""
    return 1.0 / (2.0 ** (np.asarray(l, dtype=float) + 1) - 1)
