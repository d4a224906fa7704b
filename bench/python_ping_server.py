"""The Python SDK's reference server with the same `ping` tool as Cassis,
stateless and answering in JSON, for the load comparison in scripts/bench-mcp."""

import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("python-ping")


@server.tool()
def ping() -> dict:
    """Checks that the server is reachable."""
    return {"status": "ok", "server": "cassis"}


if __name__ == "__main__":
    app = server.streamable_http_app(json_response=True, stateless_http=True)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
