#!/usr/bin/env bash
# Install everything the tests need on a fresh machine, then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium drives the browser tests (Playwright cannot download browsers here); Debian's bubblewrap
# is the Python sandbox's outer wall (its attack tests run with and without it).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "${missing[*]} not found and not root: browser tests (chromium) or the sandbox's bubblewrap runs (bubblewrap) will be skipped" >&2
  fi
fi

python -m pip install -q -e '.[dev,local]'
python -m pytest "$@"

# The `pg` subset (every table and run type) again against a real PostgreSQL server: scripts/postgres.sh
# installs and starts Debian's server when root, or reuses a running one; it prints no URL (and the
# subset is skipped) when it cannot. TOOLATLAS_SKIP_PG=1 skips it too.
if [ "${TOOLATLAS_SKIP_PG:-}" != 1 ]; then
  PG_OUT="$(bash scripts/postgres.sh)"
  # Belt and braces: keep only a URL line even if some tool wrote to stdout after all.
  PG_URL="$(printf '%s\n' "$PG_OUT" | grep -E '^postgresql(\+[a-z0-9]+)?://' | tail -n 1 || true)"
  if [ -n "$PG_URL" ]; then
    echo "PostgreSQL subset: pytest -m pg against ${PG_URL%%://*}://...@${PG_URL#*@}" >&2
    TOOLATLAS_TEST_DB_URL="$PG_URL" python -m pytest -m pg "$@"
  fi
fi
