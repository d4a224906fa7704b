"""Posts mutated MCP request bodies to a running Cassis for a fixed time.

Every answer must be an HTTP response below 500 and the server must stay up:
a 5xx, a dropped connection or a dead server is a finding. Used by
scripts/fuzz; not part of CI. Usage: fuzz_mcp.py MCP_URL API_KEY SECONDS
"""

import json
import random
import sys
import time
import urllib.error
import urllib.request

URL, KEY, SECONDS = sys.argv[1], sys.argv[2], float(sys.argv[3])

SEEDS = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ping", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_projects", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "ask_question", "arguments": {
        "project_id": "00000000-0000-0000-0000-000000000000", "question": "How many customers are there?"}}},
    {"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}},
]
ODD_VALUES = [None, True, 0, -1, 2**63, 1e308, "", "x" * 10_000, [], {}, [[[[[]]]]], "\u0000", "\ud7ff\ue000",
              "chat_" + "A" * 64, "'; DROP TABLE users; --", {"$ref": "#"}]


def mutate_value(value, rng):
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        copy = dict(value)
        roll = rng.random()
        if roll < 0.2:
            del copy[key]
        elif roll < 0.4:
            copy[rng.choice(["extra", "_meta", key + "x", ""])] = rng.choice(ODD_VALUES)
        else:
            copy[key] = mutate_value(copy[key], rng)
        return copy
    if isinstance(value, list) and value and rng.random() < 0.5:
        return [mutate_value(v, rng) for v in value]
    return rng.choice(ODD_VALUES)


def body(rng):
    seed = rng.choice(SEEDS)
    if rng.random() < 0.15:
        return rng.randbytes(rng.randint(0, 2048))
    if rng.random() < 0.1:
        depth = rng.randint(10, 5000)
        return ("[" * depth + "]" * depth).encode()
    message = mutate_value(seed, rng) if rng.random() < 0.9 else seed
    if rng.random() < 0.1:
        message = [message, mutate_value(seed, rng)]
    text = json.dumps(message).encode()
    if rng.random() < 0.2 and text:
        cut = rng.randint(0, len(text))
        text = text[:cut] + rng.randbytes(rng.randint(0, 8)) + text[cut + rng.randint(0, 4):]
    return text


def post(data, rng):
    # Mostly the headers a client sends, so most bodies reach the parser.
    odd = rng.random() < 0.1
    headers = {
        "Authorization": f"Bearer {KEY}",
        "Content-Type": rng.choice(["text/plain", "application/x-www-form-urlencoded"]) if odd else "application/json",
        "Accept": rng.choice(["application/json", "*/*", "text/html"]) if odd else "application/json, text/event-stream",
        "MCP-Protocol-Version": rng.choice(["2025-11-25", "2025-06-18", "2024-11-05", "garbage"]),
    }
    request = urllib.request.Request(URL, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        error.read()
        return error.code


def main():
    rng = random.Random(7)
    deadline = time.monotonic() + SECONDS
    runs, statuses = 0, {}
    while time.monotonic() < deadline:
        data = body(rng)
        try:
            status = post(data, rng)
        except Exception as error:  # a dropped connection or a dead server
            print(f"finding: {type(error).__name__}: {error} for body {data[:200]!r}")
            return 1
        statuses[status] = statuses.get(status, 0) + 1
        runs += 1
        if status >= 500:
            print(f"finding: HTTP {status} for body {data[:200]!r}")
            return 1
    print(f"{runs} bodies, no 5xx, statuses {dict(sorted(statuses.items()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
