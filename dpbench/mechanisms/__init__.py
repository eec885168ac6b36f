"""Privacy mechanisms and composition ([DR14, ch. 3]; docs/catalogue.md).

These are measurement tools, not hardened deployments: floating-point attacks on the
Laplace and exponential mechanisms ([Mir12]) are out of scope, as in every
simulation study; the empirical audit (:mod:`dpbench.audits.engine`) checks the sampled behaviour.
"""
