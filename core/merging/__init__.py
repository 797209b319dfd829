"""ToolScopeMerger (ToolScope §3.2, App. F–I, K): candidates, judges, clusters, Auto-Correction, merged docs."""
