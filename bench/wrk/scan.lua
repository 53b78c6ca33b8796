-- GET /CODE for random six-character base62 codes, as a scanner would send: all but certainly unknown
-- (one in 62^6 / links hits a real code and gets a 302, which is a right answer too).
dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'common.lua')

local ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
local bytes = {}

function init()
  math.randomseed(os.time() * 100 + thread_id)
end

function request()
  for i = 1, 6 do
    local k = math.random(62)
    bytes[i] = ALPHABET:byte(k)
  end
  return scan_request(string.char(unpack(bytes)))
end
