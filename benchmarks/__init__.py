"""Benchmarks of polyregions: ``python -m benchmarks`` prints a table of timings."""
