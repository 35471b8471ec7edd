-- What the specs that build or run programs ask of the shell.
local S = {}

-- Whether a command is on PATH.
function S.have(cmd)
  return os.execute("command -v " .. cmd .. " >/dev/null 2>&1") == true
end

-- The build directory of the module under test: the first cpath entry.
function S.build_dir()
  local first = package.cpath:match("^([^;]*)")
  return first and first:match("^(.*)/%?%.so$")
end

function S.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

return S
