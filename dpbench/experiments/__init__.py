"""One module per experiment of the design table; each registers an Experiment."""
