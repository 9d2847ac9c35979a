"""The tests: a package, so a test module imports shared helpers as ``tests._support.<name>``."""
