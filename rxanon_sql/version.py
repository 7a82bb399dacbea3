"""The version of rxanon-sql (vocabulary: read by reuse.py and the run log without importing the package's API)."""
__version__ = "0.1.0"
