#!/bin/bash
# Installs the API tests' npm packages, pinned by package-lock.json (the official OpenAI client, and
# playwright-core to drive Debian's chromium), next to the tests: install.sh SOURCE_DIR DEST_DIR.
# npm and node come from Debian (tools/dev.sh installs npm and chromium).
set -euo pipefail
src=$1 dest=$2
mkdir -p "$dest"
cp "$src"/package.json "$src"/package-lock.json "$src"/*.mjs "$dest"/
cd "$dest"
# npm ci again only when the lock changed (it removes node_modules first).
if ! cmp -s package-lock.json node_modules/.shoehorn-installed-lock; then
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.shoehorn-installed-lock
fi
for p in openai playwright-core; do
    echo "$p $(node -p "require('./node_modules/$p/package.json').version") in $dest"
done
