"""A tiny calculator package used by cascade's bundled SWE tasks."""

from calc.ops import add, clamp, mean, subtract

__all__ = ["add", "clamp", "mean", "subtract"]
