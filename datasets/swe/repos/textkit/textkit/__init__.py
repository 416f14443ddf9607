"""Small text utilities used by cascade's bundled SWE tasks."""
