-- busted output handler for `make test`.
--
-- While the suite runs it prints one character per test ("." passed,
-- "F" failed, "E" error, "P" pending), then every failure and error with its
-- full name, file:line and message (errors raised outside `it` blocks --
-- while loading a spec file, in a describe body or in a hook -- too), and as
-- its very last line
--
--     N passed, N failed[, N skipped]
--
-- Errors count as failed; ", N skipped" appears only when tests are pending.

local io_write, io_flush = io.write, io.flush

return function(options)
  local busted = require 'busted'
  local handler = require 'busted.outputHandlers.base'()

  local column = 0
  local problems = {}   -- formatted failures/errors, in the order they happened

  local function mark(c)
    io_write(c)
    column = column + 1
    if column >= 72 then
      io_write('\n')
      column = 0
    end
    io_flush()
  end

  local function to_text(message)
    if message == nil then return 'nil error' end
    if type(message) == 'string' then return message end
    local ok, pretty = pcall(require, 'pl.pretty')
    if ok then
      local ok2, s = pcall(pretty.write, message)
      if ok2 and s then return s end
    end
    return tostring(message)
  end

  local function where(t)
    local tr = (t.element and t.element.trace) or t.trace
    if tr and tr.short_src then
      return tr.short_src .. ':' .. tostring(tr.currentline or '?')
    end
    local tr2 = t.trace
    if tr2 and tr2.short_src then
      return tr2.short_src .. ':' .. tostring(tr2.currentline or '?')
    end
    return '?'
  end

  local function show(kind, t)
    local lines = {}
    local name = t.name
    if name == nil or name == '' then
      name = (t.element and (t.element.name or t.element.descriptor)) or '?'
    end
    lines[#lines + 1] = kind .. ': ' .. tostring(name)
    lines[#lines + 1] = '  at ' .. where(t)
    local msg = to_text(t.message):gsub('\n', '\n    ')
    lines[#lines + 1] = '    ' .. msg
    local trace = t.trace
    if options.verbose and trace and trace.traceback then
      lines[#lines + 1] = '    ' .. trace.traceback:gsub('^\n', ''):gsub('\n', '\n    ')
    end
    return table.concat(lines, '\n')
  end

  handler.suiteReset = function()
    column = 0
    problems = {}
    return nil, true
  end

  handler.testEnd = function(element, parent, status)
    if status == 'success' then
      mark('.')
    elseif status == 'pending' then
      mark('P')
    elseif status == 'failure' then
      mark('F')
      problems[#problems + 1] = show('FAIL', handler.failures[#handler.failures])
    elseif status == 'error' then
      mark('E')
      problems[#problems + 1] = show('ERROR', handler.errors[#handler.errors])
    end
    return nil, true
  end

  -- Errors (and failures) of anything but an `it`: a spec file that does not
  -- load, a describe body, before_each/after_each hooks ...  The base handler
  -- has already stored them in handler.errors.
  handler.outsideError = function(element, parent, message, debug)
    if element.descriptor ~= 'it' then
      mark('E')
      local t = handler.errors[#handler.errors]
      if not t or t.message ~= message then
        t = handler.format(element, parent, message, debug, true)
      end
      problems[#problems + 1] = show('ERROR (' .. tostring(element.descriptor) .. ')', t)
    end
    return nil, true
  end

  handler.suiteEnd = function()
    if column > 0 then io_write('\n') end
    column = 0
    if #problems > 0 then
      io_write('\n', table.concat(problems, '\n\n'), '\n\n')
    end
    local passed = handler.successesCount
    local failed = handler.failuresCount + handler.errorsCount
    local line = string.format('%d passed, %d failed', passed, failed)
    if handler.pendingsCount > 0 then
      line = line .. string.format(', %d skipped', handler.pendingsCount)
    end
    io_write(line, '\n')
    io_flush()
    return nil, true
  end

  busted.subscribe({ 'suite', 'reset' }, handler.suiteReset)
  busted.subscribe({ 'suite', 'end' }, handler.suiteEnd)
  busted.subscribe({ 'test', 'end' }, handler.testEnd, { predicate = handler.cancelOnPending })
  busted.subscribe({ 'error' }, handler.outsideError)
  busted.subscribe({ 'failure' }, handler.outsideError)

  return handler
end
