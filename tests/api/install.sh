#!/bin/bash
# Installs the official OpenAI npm client, pinned by package-lock.json, next to the API tests:
# install.sh SOURCE_DIR DEST_DIR. npm and node come from Debian (tools/dev.sh installs npm).
set -euo pipefail
src=$1 dest=$2
mkdir -p "$dest"
cp "$src"/package.json "$src"/package-lock.json "$src"/*.mjs "$dest"/
cd "$dest"
want=$(node -p "require('./package-lock.json').packages['node_modules/openai'].version")
have=$(node -p "try { require('./node_modules/openai/package.json').version } catch { '' }")
if [ "$want" != "$have" ]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
echo "openai $(node -p "require('./node_modules/openai/package.json').version") in $dest"
