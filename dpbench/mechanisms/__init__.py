"""Privacy mechanisms and composition (algorithms.md §7).

These are measurement tools, not hardened deployments: floating-point attacks on the
Laplace and exponential mechanisms (Mironov 2012) are out of scope, as in every
simulation study; the empirical audit (:mod:`dpbench.audit`) checks the sampled behaviour.
"""
