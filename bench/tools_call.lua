-- wrk: one MCP tools/call per request, as a stateless 2025-11-25 client sends it.
-- TOOL, TOKEN and ARGS (the tool's arguments as a JSON object, `{}` when
-- unset) come from the environment.
local tool = os.getenv("TOOL") or "ping"
local token = os.getenv("TOKEN")
local args = os.getenv("ARGS")
if not args or args == "" then args = "{}" end
wrk.method = "POST"
-- VIA_RMCP adds `_meta`, which sends the call through rmcp instead of the
-- direct answer for plain calls, to compare the two paths.
local via_rmcp = os.getenv("VIA_RMCP")
local meta = (via_rmcp and via_rmcp ~= "") and ',"_meta":{"progressToken":1}' or ""
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' .. tool .. '","arguments":' .. args .. meta .. '}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

-- Count answers that are not a successful tool result, so a fast error
-- cannot pass for throughput.
local failures = 0
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"isError":false', 1, true) then
    failures = failures + 1
  end
end

function done(summary, latency, requests)
  io.write(string.format("RESULT requests/s=%.0f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
