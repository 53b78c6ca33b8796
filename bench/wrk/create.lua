-- POST /api/v1/links, each with a URL never sent before. Args: PREFIX (unique per run) KEY
dofile(debug.getinfo(1, 'S').source:match('^@(.*/)') .. 'common.lua')

local prefix
local counter = 0

function init(args)
  prefix = args[1] or error('create.lua needs PREFIX')
  use_api_key(args[2] or error('create.lua needs KEY'))
end

function request()
  counter = counter + 1
  return create_request(prefix, counter)
end
