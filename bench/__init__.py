"""On-demand benchmarks: ``python -m bench.<name>``; never part of the test run."""
