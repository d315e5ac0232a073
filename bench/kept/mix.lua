-- wrk script for bench/kept/run.sh: each request is a GET of a random contact, a random page
-- of 20 of a random organization's contacts, or a create, by the shares given.
--   wrk ... -s mix.lua URL -- TARGET PGET PCREATE WHERE IDS [TOKEN]
-- TARGET: app or pb. PGET: share of GETs among the reads (the rest are list pages).
-- PCREATE: share of creates, WHERE: in a random organization ("all") or in the first ("first").
-- IDS: a Lua file answering { {org, id}, ... }.
-- A PGET of -1 asks for the same contact (the first) again and again.
local target, pget, pcreate, where, ids, token, pages, n
local orgs = {}

function init(args)
  target, pget, pcreate, where = args[1], tonumber(args[2]), tonumber(args[3]), args[4]
  ids, token = dofile(args[5]), args[6]
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
  local seen = {}
  for _, r in ipairs(ids) do
    if not seen[r[1]] then seen[r[1]] = true; orgs[#orgs + 1] = r[1] end
  end
  pages = math.floor(#ids / #orgs / 20)
  n = 0
end

local function headers(post)
  local h = {}
  if token then h["Authorization"] = "Bearer " .. token end
  if post then h["Content-Type"] = "application/json" end
  return h
end

request = function()
  n = n + 1
  local org = orgs[math.random(#orgs)]
  if math.random() < pcreate then
    if where == "first" then org = ids[1][1] end
    local mail = string.format("k%d-%d-%d@example.com", os.time(), n, math.random(1000000000))
    if target == "app" then
      return wrk.format("POST", "/orgs/" .. org .. "/contacts", headers(true),
        string.format('{"name":"Bench %d","channels":[{"type":"email","email":"%s"}]}', n, mail))
    end
    return wrk.format("POST", "/api/collections/contacts/records", headers(true),
      string.format('{"name":"Bench %d","email":"%s","org":"%s"}', n, mail, org))
  end
  if pget < 0 or math.random() < pget then
    local r = ids[pget < 0 and 1 or math.random(#ids)]
    if target == "app" then
      return wrk.format("GET", "/orgs/" .. r[1] .. "/contacts/" .. r[2], headers(false))
    end
    return wrk.format("GET", "/api/collections/contacts/records/" .. r[2], headers(false))
  end
  local page = math.random(pages)
  if target == "app" then
    return wrk.format("GET", "/orgs/" .. org .. "/contacts?take=20&page=" .. page, headers(false))
  end
  return wrk.format("GET", "/api/collections/contacts/records?perPage=20&page=" .. page ..
    "&filter=" .. "org%3D%27" .. org .. "%27", headers(false))
end
