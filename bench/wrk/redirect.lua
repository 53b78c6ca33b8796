-- GET /CODE from a browser, codes drawn uniformly from a file. Args: CODES_FILE
dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'common.lua')

local random_code

function init(args)
  random_code = random_line_of(args[1])
  math.randomseed(os.time() * 100 + thread_id)
end

function request()
  return redirect_request(random_code())
end
