#!/usr/bin/env bash
# Installs what the build and the specs need, when it is missing and the
# machine can install Debian packages.  On a machine without apt (the GPU
# machine, with the carried Lua bundle on PATH) it only checks.
set -euo pipefail
have() { command -v "$1" >/dev/null 2>&1; }
missing=()
have lua5.4 || missing+=(lua5.4)
have busted || missing+=(lua-busted)
have cmake || missing+=(cmake)
if ! { [ -n "${LUA_BUNDLE_INCLUDE:-}" ] && [ -f "$LUA_BUNDLE_INCLUDE/lua.h" ]; } \
   && [ ! -f /usr/include/lua5.4/lua.h ]; then
  missing+=(liblua5.4-dev)
fi
if ((${#missing[@]})); then
  if have apt-get && [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing ${missing[*]} and cannot install them here" >&2
    exit 1
  fi
fi
# luarocks is only for the install check (spec/install_spec.lua), which is
# skipped where it is absent: try to install it, never require it.
if ! have luarocks && have apt-get && [ "$(id -u)" = 0 ]; then
  { apt-get install -y -qq luarocks >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq luarocks >/dev/null 2>&1; }; } ||
    echo "setup: luarocks not installed (the install check will be skipped)" >&2
fi
# luajit is only for the LuaJIT specs (spec/luajit_spec.lua), which are
# skipped where it is absent: likewise tried, never required.
if ! have luajit && have apt-get && [ "$(id -u)" = 0 ]; then
  { apt-get install -y -qq luajit >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq luajit >/dev/null 2>&1; }; } ||
    echo "setup: luajit not installed (the LuaJIT specs will be skipped)" >&2
fi
