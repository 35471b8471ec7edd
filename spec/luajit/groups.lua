-- Groups are not bound under LuaJIT yet (issue 60 phase 1 binds them for
-- Lua 5.4 only): mgpu.group raises an error that says so, and the C API's
-- group functions are declared (ffi_cdef.lua) for a script that calls them
-- through the FFI.
local T = require "luajit.harness"
local ffi = require "ffi"
local mgpu = require "mgpu"

T.test("mgpu.group is not there yet", function()
  T.raises("mgpu.group: not yet under LuaJIT", mgpu.group,
    { devices = { T.device, T.device } })
  T.raises("mgpu.group: not yet under LuaJIT", mgpu.group)
end)

T.test("the C declarations are", function()
  T.ok(ffi.typeof("mgpu_group *"), "mgpu_group")
  T.ok(ffi.typeof("mgpu_status (*)(mgpu_group *, mgpu_dtype, mgpu_order, size_t, "
    .. "void *const *, void *const *, const size_t *, void **, void **, size_t *)"),
    "mgpu_group_mergesort's type")
end)

T.done()
