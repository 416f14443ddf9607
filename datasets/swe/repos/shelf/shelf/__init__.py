"""A toy inventory used by cascade's bundled SWE tasks."""

from shelf.stock import Stock

__all__ = ["Stock"]
