"""Fixtures for the API tests; the helpers live in api_harness (importable by name)."""
from .api_harness import served  # noqa: F401
