-- Loaded by every scenario script. Counts responses by status in each thread and, at the end, prints one
-- line "WRK_RESULT {json}" that bench/wrk.ts reads: exact microseconds and counts, unlike wrk's rounded
-- text summary, and a status breakdown, which wrk's "Non-2xx or 3xx responses" lumps together.
-- Scenario scripts get their arguments after "--": args[1], args[2], … (args[0] is the URL).

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set('thread_id', #threads)
end

statuses = {}

function response(status)
  statuses[status] = (statuses[status] or 0) + 1
end

local ffi = require('ffi')

-- A function returning a random line of a file. The lines stay in one string, found through an array of
-- offsets: two objects for the garbage collector. A table of a million strings instead made each of its
-- cycles walk them all, pausing wrk for tens of milliseconds and inflating every server's tail latency.
function random_line_of(path)
  local file = assert(io.open(path, 'rb'))
  local text = file:read('*a')
  file:close()
  local count = 0
  for _ in text:gmatch('\n') do count = count + 1 end
  if count == 0 then error('no lines in ' .. path) end
  -- starts[i] is where line i (0-based) begins; each line ends with a newline, the last one too.
  local starts = ffi.new('int32_t[?]', count + 1)
  local pos = 1
  for i = 0, count - 1 do
    starts[i] = pos
    pos = text:find('\n', pos, true) + 1
  end
  starts[count] = pos
  return function()
    local i = math.random(count) - 1
    return text:sub(starts[i], starts[i + 1] - 2)
  end
end

local get_head, get_tail

-- wrk's own GET request for /CODE, built around the code.
function redirect_request(code)
  if not get_head then get_head, get_tail = wrk.format('GET', '/CODE'):match('^(.-)CODE(.*)$') end
  return get_head .. code .. get_tail
end

local create_headers = { ['Content-Type'] = 'application/json' }

-- Creations need an API key; the baseline ignores it.
function use_api_key(key)
  create_headers['Authorization'] = 'Bearer ' .. key
end

-- A create request for a URL that no other request of the whole bench sends: prefix (unique per run),
-- thread and counter.
function create_request(prefix, n)
  local body = string.format('{"url":"https://www.example.com/new/%s/%d/%d?utm_source=kurz-bench"}', prefix, thread_id, n)
  return wrk.format('POST', '/api/v1/links', create_headers, body)
end

function done(summary, latency)
  local counts = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get('statuses')) do counts[status] = (counts[status] or 0) + n end
  end
  local parts = {}
  for status, n in pairs(counts) do parts[#parts + 1] = string.format('"%d":%d', status, n) end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"durationUs":%d,"requests":%d,"bytes":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"latencyUs":{"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d},"statuses":{%s}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.max, table.concat(parts, ',')))
end
