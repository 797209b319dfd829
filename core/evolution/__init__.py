"""Evolving toolsets (CONTDA): toolset sequences, per-step evaluation with Forget / Discover, and
continual documentation adaptation (relation-guided exploration and relation-aware adjustment).

Modules stay small and import nothing heavy here; see each module's docstring.
"""
