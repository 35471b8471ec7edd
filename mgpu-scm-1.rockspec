rockspec_format = "3.0"
package = "mgpu"
version = "scm-1"
source = {
  url = "git+https://example.invalid/mgpu.git",
}
description = {
  summary = "Modern GPU primitives for Lua: merge, sort, set operations, load-balanced intervals",
  detailed = [[
    Typed GPU arrays and the Modern GPU primitives: merge, mergesort,
    segmented and locality sort, multiset operations, bulk insert and
    remove, and interval expand/move/gather/scatter, with a CUDA backend
    and a serial cpu backend that gives identical results where no GPU is
    present.
  ]],
  license = "MIT",
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
build = {
  type = "cmake",
  variables = {
    CMAKE_INSTALL_PREFIX = "$(PREFIX)",
    CMAKE_BUILD_TYPE = "Release",
    LUA_INCLUDE_DIR = "$(LUA_INCDIR)",
    LUA_LIBDIR = "$(LUA_LIBDIR)",
    MGPU_INSTALL_LMOD = "$(LUADIR)",
    MGPU_INSTALL_CMOD = "$(LIBDIR)",
    MGPU_INSTALL_C_LIBRARY = "OFF",
  },
}
