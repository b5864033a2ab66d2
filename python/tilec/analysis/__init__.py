"""Analyses of tilec IR that passes and the lowering share: axis info (axis_lattice, axis_rules,
axis_info), linear layouts (layouts), shared-memory sizing (shared_memory) and constants."""
