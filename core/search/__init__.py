"""Dense, BM25, hybrid and fused search over a catalog."""
