#!/usr/bin/env bash
# Runs busted under Lua 5.4 whichever way it is installed: Debian's
# /usr/bin/busted is a Lua script for the default `lua` (which may be 5.1);
# the carried bundle's busted is a wrapper that already picks lua5.4.
set -euo pipefail
b=$(command -v busted)
if head -c 64 "$b" | grep -q bash; then
  exec "$b" "$@"
else
  exec lua5.4 "$b" "$@"
fi
