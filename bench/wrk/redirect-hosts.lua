-- GET /CODE from a browser to several short domains of one server: the hosts take turns, and each request
-- carries its host's Host header and one of its host's codes, drawn uniformly from that host's file.
-- Args: HOST CODES_FILE [HOST CODES_FILE …]
dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'common.lua')

local hosts, random_codes = {}, {}
local turn = 0

function init(args)
  for i = 1, #args, 2 do
    hosts[#hosts + 1] = args[i]
    random_codes[#random_codes + 1] = random_line_of(args[i + 1] or error('redirect-hosts.lua needs a CODES_FILE after ' .. args[i]))
  end
  if #hosts == 0 then error('redirect-hosts.lua needs HOST CODES_FILE') end
  math.randomseed(os.time() * 100 + thread_id)
end

function request()
  turn = turn % #hosts + 1
  return redirect_request_to(hosts[turn], random_codes[turn]())
end
