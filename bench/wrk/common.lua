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

-- Redirects carry the headers of a desktop browser following a link: kurz records them with each visit and
-- classifies them off the request path. Without a User-Agent (wrk sends none) every visit would be a bot's.
local BROWSERS = {
  { 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'en-US,en;q=0.9' },
  { 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    'de-DE,de;q=0.9,en;q=0.8' },
  { 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'fr-FR,fr;q=0.8,en-US;q=0.5,en;q=0.3' },
}
-- Half the people come without a Referer (typed, apps, privacy settings), the rest from a page.
local REFERRERS = { false, false, false, 'https://www.google.com/', 'https://news.ycombinator.com/item?id=42133700',
  'https://t.co/' }
-- Link previews and crawlers: a browser-like one, and one that names only itself.
local BOTS = {
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
}

-- Bot requests this thread sent; done() reports the sum, which the database check compares with kurz's bots.
bot_requests = 0

-- A GET /CODE request with the given headers, split around the code, in a fixed header order; to `host`,
-- or the server's own (wrk's Host header).
local function template(headers, host)
  local lines = { 'GET /CODE HTTP/1.1', 'Host: ' .. (host or wrk.headers['Host']) }
  for _, header in ipairs(headers) do
    if header[2] then lines[#lines + 1] = header[1] .. ': ' .. header[2] end
  end
  local head, tail = (table.concat(lines, '\r\n') .. '\r\n\r\n'):match('^(.-)CODE(.*)$')
  return { head, tail }
end

local people, bots, scanner
-- People's templates by Host, for redirect_request_to.
local people_to = {}

-- A person's browser's templates: one per browser and referrer.
local function people_templates(host)
  local templates = {}
  for _, browser in ipairs(BROWSERS) do
    for _, referrer in ipairs(REFERRERS) do
      templates[#templates + 1] = template({
        { 'User-Agent', browser[1] },
        { 'Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
        { 'Accept-Language', browser[2] },
        { 'Accept-Encoding', 'gzip, deflate, br, zstd' },
        { 'Referer', referrer },
      }, host)
    end
  end
  return templates
end

-- Built on first use: wrk sets the Host header after the script loads.
local function build_templates()
  people, bots = people_templates(), {}
  for _, agent in ipairs(BOTS) do
    bots[#bots + 1] = template({ { 'User-Agent', agent }, { 'Accept', '*/*' } })
  end
  -- A script trying codes: it passes for a browser, but asks for no HTML page (both servers answer the
  -- 404 as problem+json). The one in a few million that hits a code counts as a person's visit.
  scanner = { template({ { 'User-Agent', BROWSERS[1][1] }, { 'Accept', '*/*' } }) }
end

local function request_from(templates, code)
  local t = templates[math.random(#templates)]
  return t[1] .. code .. t[2]
end

-- GET /CODE as a person's browser sends it, with one of a few browsers and referrers.
function redirect_request(code)
  if not people then build_templates() end
  return request_from(people, code)
end

-- GET /CODE as a person's browser sends it to `host` (a short domain other than the server's address).
function redirect_request_to(host, code)
  local templates = people_to[host]
  if not templates then
    templates = people_templates(host)
    people_to[host] = templates
  end
  return request_from(templates, code)
end

-- GET /CODE as a code scanner sends it.
function scan_request(code)
  if not scanner then build_templates() end
  return request_from(scanner, code)
end

-- GET /CODE as a link preview or crawler sends it.
function bot_redirect_request(code)
  if not bots then build_templates() end
  bot_requests = bot_requests + 1
  return request_from(bots, code)
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
  local bot_total = 0
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get('statuses')) do counts[status] = (counts[status] or 0) + n end
    bot_total = bot_total + thread:get('bot_requests')
  end
  local parts = {}
  for status, n in pairs(counts) do parts[#parts + 1] = string.format('"%d":%d', status, n) end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"durationUs":%d,"requests":%d,"bytes":%d,"botRequests":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"latencyUs":{"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d},"statuses":{%s}}\n',
    summary.duration, summary.requests, summary.bytes, bot_total,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.max, table.concat(parts, ',')))
end
