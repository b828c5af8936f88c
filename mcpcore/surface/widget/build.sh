#!/usr/bin/env bash
# Builds the study widget (Vite + vite-plugin-singlefile, pinned by
# package-lock.json, on the pinned Node 22 of scripts/node22.sh) into the one
# HTML file the surface embeds: mcpcore/surface/widget.html.
#
#   bash mcpcore/surface/widget/build.sh          # make widget
#   bash mcpcore/surface/widget/build.sh --check  # make check-widget: fail when the committed file differs
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$DIR/../../.." && pwd)"
OUT="$DIR/../widget.html"
. "$ROOT/scripts/node22.sh"
cd "$DIR"
# Install exactly what the lock file names, again only when it changed.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund >/dev/null
fi
"$NODE" node_modules/vite/bin/vite.js build
if [ "${1:-}" = "--check" ]; then
	if ! cmp -s dist/index.html "$OUT"; then
		echo "widget: mcpcore/surface/widget.html differs from a fresh build ($(wc -c <dist/index.html) bytes built, $(wc -c <"$OUT") committed): run make widget and commit it"
		exit 1
	fi
	echo "widget: mcpcore/surface/widget.html is current ($(wc -c <"$OUT") bytes)"
	exit 0
fi
cp dist/index.html "$OUT"
echo "widget: wrote mcpcore/surface/widget.html ($(wc -c <"$OUT") bytes)"
