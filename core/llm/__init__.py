"""The LLM layer: role functions over pluggable backends (offline heuristics, OpenAI-compatible endpoints),
with every call recorded in a ledger and replayable."""
