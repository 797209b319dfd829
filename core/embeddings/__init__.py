"""Embedding backends behind :class:`core.embedding.Embedder`: an OpenAI-compatible ``/v1/embeddings`` server
(:mod:`core.embeddings.openai`) and vectors computed elsewhere and imported (:mod:`core.embeddings.precomputed`).

:mod:`core.embedding` stays the one entry: it holds the protocol, the local sentence-transformers model, the
cached encoding path and :func:`core.embedding.make_embedder`, which picks a backend by name.
"""
