#!/usr/bin/env bash
# Install everything the tests need on a fresh machine, then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium drives the browser tests (Playwright cannot download browsers here).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium not found and not root: browser tests will be skipped" >&2
  fi
fi

python -m pip install -q -e '.[dev,local]'
python -m pytest "$@"
