"""Retrieval strategies, one module each, looked up by name (see :mod:`core.strategies.registry`)."""
