"""GRETEL trials: plan, execute, simulate and re-rank candidate tools on evidence."""
