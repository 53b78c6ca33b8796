-- redirect.lua at a fixed offered rate, to measure latency below saturation. Args: CODES_FILE RATE
-- RATE is requests/s per wrk thread (the bench runs one). Requests fall due at the arrivals of a Poisson
-- process at RATE, and a free connection waits for the next one due. The schedule does not depend on how
-- fast the server answers, so every server is offered the same load. wrk starts its latency clock when it
-- sends, after the wait: a connection must be free when a request falls due, so give it plenty.
dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'redirect.lua')

local ffi = require('ffi')
ffi.cdef([[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock, bench_timespec *time);
]])
local CLOCK_MONOTONIC = 1
local clock = ffi.new('bench_timespec')

local function now_ms()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, clock)
  return tonumber(clock.tv_sec) * 1e3 + tonumber(clock.tv_nsec) / 1e6
end

local redirect_init = init
local interval_ms, due

function init(args)
  redirect_init(args)
  interval_ms = 1000 / (tonumber(args[2]) or error('paced-redirect.lua needs RATE'))
end

-- wrk takes whole milliseconds; the schedule itself keeps fractions, so rounding does not add up.
function delay()
  local now = now_ms()
  due = (due or now) - interval_ms * math.log(1 - math.random())
  return math.max(0, math.floor(due - now + 0.5))
end
