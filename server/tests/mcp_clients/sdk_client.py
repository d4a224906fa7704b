"""Drives a Cassis MCP endpoint with the official Python SDK, as agents do.

Usage: sdk_client.py URL API_KEY MODE SCRIPT_JSON

MODE is `legacy` (2025-11-25: initialize, then tools) or `auto` (the stateless
2026-07-28 revision when the server offers it). SCRIPT_JSON is a list of
tool calls, `{"tool": NAME, "arguments": {...}}`; an argument whose value is
`"$chat_id"` takes the chat id of the previous result. Prints one JSON object:
the negotiated protocol version, the listed tools and every call's result.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, key: str, mode: str, script: list) -> dict:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120)
    report = {"calls": []}
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode) as client:
            report["protocol_version"] = str(client.protocol_version)
            report["server"] = client.server_info.name if client.server_info else None
            tools = await client.list_tools()
            report["tools"] = {
                tool.name: {
                    "has_output_schema": tool.output_schema is not None,
                    "input_properties": sorted((tool.input_schema or {}).get("properties", {})),
                    "description": tool.description,
                }
                for tool in tools.tools
            }
            chat_id = None
            for step in script:
                arguments = {
                    name: (chat_id if value == "$chat_id" else value)
                    for name, value in step.get("arguments", {}).items()
                }
                result = await client.call_tool(step["tool"], arguments)
                structured = result.structured_content
                text = [block.text for block in result.content if getattr(block, "type", "") == "text"]
                if isinstance(structured, dict) and structured.get("chat_id"):
                    chat_id = structured["chat_id"]
                report["calls"].append(
                    {
                        "tool": step["tool"],
                        "is_error": bool(result.is_error),
                        "structured": structured,
                        "text_matches_structured": bool(text) and json.loads(text[0]) == structured,
                    }
                )
    return report


if __name__ == "__main__":
    url, key, mode, script = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    print(json.dumps(asyncio.run(main(url, key, mode, script))))
