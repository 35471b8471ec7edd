#!/usr/bin/env bash
# Installs the rock with luarocks (offline, into a scratch tree) and checks
# that the installed module loads and merges.  MGPU_WITH_CUDA=OFF by default
# here to keep it quick; pass MGPU_WITH_CUDA=ON to build the CUDA backend too.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
export MGPU_WITH_CUDA=${MGPU_WITH_CUDA:-OFF}
# luarocks builds in the source folder (build.luarocks/): give it a copy.
mkdir "$tree/src"
cp -r CMakeLists.txt mgpu-scm-1.rockspec cmake src kernels lua bench "$tree/src/"
(cd "$tree/src" && luarocks --lua-version 5.4 --tree "$tree" make mgpu-scm-1.rockspec) >"$tree/log" 2>&1 || {
  cat "$tree/log" >&2
  exit 1
}
LUA_PATH="$tree/share/lua/5.4/?.lua;$tree/share/lua/5.4/?/init.lua" \
LUA_CPATH="$tree/lib/lua/5.4/?.so" \
lua5.4 -e '
  local mgpu = require "mgpu"
  local c = mgpu.merge(mgpu.array{1, 3, 5}, mgpu.array{2, 4})
  assert(table.concat(c:totable(), ",") == "1,2,3,4,5")
  print("installed mgpu " .. mgpu._VERSION .. " from " .. package.searchpath("mgpu.core", package.cpath))'
