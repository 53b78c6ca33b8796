-- 95% GET /CODE over the codes in a file (1 in 10 of them from a bot), 5% creates of new URLs.
-- Args: CODES_FILE PREFIX KEY
dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'common.lua')

local CREATE_SHARE = 0.05
-- Link previews and crawlers: kurz counts them apart from people, in every rollup.
local BOT_SHARE = 0.1
local random_code, prefix
local counter = 0

function init(args)
  random_code = random_line_of(args[1])
  prefix = args[2] or error('mixed.lua needs PREFIX')
  use_api_key(args[3] or error('mixed.lua needs KEY'))
  math.randomseed(os.time() * 100 + thread_id)
end

function request()
  if math.random() < CREATE_SHARE then
    counter = counter + 1
    return create_request(prefix, counter)
  end
  if math.random() < BOT_SHARE then return bot_redirect_request(random_code()) end
  return redirect_request(random_code())
end
