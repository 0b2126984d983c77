-- A LuaJIT workload for the rig (tests/realjit, docs/RUNNING-YOUR-JIT.md):
-- it makes the JIT write, patch and throw away machine code again and again,
-- so that every way LuaJIT calls __clear_cache happens many times:
--
--   * many root traces: each round compiles NFUNCS distinct loops (one chunk
--     per loop, so each gets a trace of its own);
--   * patched side exits: each loop has a branch that turns hot only after
--     the loop's trace exists, so LuaJIT compiles a side trace and patches
--     the parent's exit branch to jump to it (asm_patchexit -> lj_mcode_sync);
--   * jit.flush() after every round: the next round's traces are written
--     over the machine code of the previous one, at the same addresses.
--
--   luajit traces.lua [ROUNDS [NFUNCS [N]]]
--
-- stdout is the same with and without the JIT (the test compares it with a
-- -joff run): one checksum per round. stderr says what the JIT did (root
-- traces, side traces, flushes), so the test can require that it really
-- compiled; with -joff those counts are 0.

local rounds = tonumber(arg and arg[1]) or 3
local nfuncs = tonumber(arg and arg[2]) or 40
local n = tonumber(arg and arg[3]) or 600

local roots, sides, aborts, flushes = 0, 0, 0, 0
if jit and jit.status() then
  jit.attach(function(what, _, _, _, parent)
    if what == "start" then
      if parent then sides = sides + 1 else roots = roots + 1 end
    elseif what == "abort" then
      aborts = aborts + 1
    elseif what == "flush" then
      flushes = flushes + 1
    end
  end, "trace")
end

-- Loop K of a round. The branch on "i > hot" is never taken while the root
-- trace is recorded (hot is past the hot-loop threshold), so it becomes a
-- side exit; it is then taken on most later iterations and gets a side trace.
local template = [[
local n, k, hot = ...
local acc, t = 0, {}
for i = 1, n do
  if i > hot then
    acc = (acc * %d + i) %% 1000003
    t[i %% 16 + 1] = acc
  elseif i %% %d == 0 then
    acc = acc + k * i
  else
    acc = acc + (i %% 13)
  end
end
for j = 1, 16 do acc = (acc + (t[j] or j)) %% 1000003 end
return acc
]]

local chunks = {}
for k = 1, nfuncs do
  local src = string.format(template, k % 7 + 2, k % 5 + 3)
  chunks[k] = assert(load(src, "=loop" .. k))
end

for r = 1, rounds do
  local sum = 0
  for k = 1, nfuncs do
    sum = (sum * 31 + chunks[k](n + r, k, 150 + k % 11)) % 4294967291
  end
  io.write(string.format("round %d checksum %d\n", r, sum))
  if jit then jit.flush() end
end
io.stderr:write(string.format("traces: root=%d side=%d aborted=%d flushes=%d\n",
                              roots, sides, aborts, flushes))
