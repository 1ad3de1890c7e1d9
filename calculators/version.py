"""The package version, in a module of its own so any layer can read it without importing the package.

``pyproject.toml`` carries the same string; ``tests/engine/test_public_api.py`` checks the two agree.

>>> __version__.count(".")
2
"""

__version__ = "0.1.0"
