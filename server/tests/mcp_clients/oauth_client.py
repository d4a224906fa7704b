"""Connects to a Cassis MCP endpoint the way interactive clients do: the
Python SDK's OAuthClientProvider discovers the authorization server from the
401, registers itself, sends the user to the authorize page, exchanges the
code and calls tools. The "browser" here is a second HTTP client that signs
in on the login page and approves on the consent page, as a person would.

Usage: oauth_client.py MCP_URL EMAIL PASSWORD

Prints one JSON object: what each step saw, for the Rust test to assert.
"""

import asyncio
import json
import re
import sys
import time
from urllib.parse import parse_qs, urljoin, urlparse

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT_URI = "http://127.0.0.1:59999/callback"


class MemoryStorage(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class Browser:
    """Follows the authorize URL through login and consent, like a person."""

    def __init__(self, base: str, email: str, password: str, report: dict) -> None:
        self.base = base
        self.email = email
        self.password = password
        self.report = report
        self.result: AuthorizationCodeResult | None = None

    async def open(self, authorize_url: str) -> None:
        steps = self.report.setdefault("browser", [])
        async with httpx2.AsyncClient(base_url=self.base, follow_redirects=False, timeout=30) as browser:
            response = await browser.get(authorize_url)
            steps.append({"status": response.status_code, "location": response.headers.get("location")})
            if response.status_code in (302, 303, 307) and "/login" in response.headers["location"]:
                login_page = urljoin(self.base, response.headers["location"])
                next_path = parse_qs(urlparse(login_page).query)["next"][0]
                page = await browser.get(login_page)
                steps.append({"login_page": page.status_code, "has_next_field": 'name="next"' in page.text})
                response = await browser.post(
                    "/api/login",
                    data={"email": self.email, "password": self.password, "next": next_path},
                    headers={"Origin": self.base, "Referer": login_page, "Accept": "text/html"},
                )
                steps.append({"login": response.status_code, "location": response.headers.get("location")})
                response = await browser.get(response.headers["location"])
            consent = response.text
            self.report["consent_page"] = {
                "status": response.status_code,
                "names_client": "Cassis OAuth test" in consent,
                "names_user": self.email in consent,
            }
            fields = dict(re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">', consent))
            fields = {name: value.replace("&amp;", "&").replace("&quot;", '"') for name, value in fields.items()}
            fields["decision"] = "approve"
            response = await browser.post("/oauth/authorize", data=fields, headers={"Origin": self.base})
            location = response.headers.get("location", "")
            steps.append({"decision": response.status_code, "redirect_starts": location.startswith(REDIRECT_URI)})
            query = parse_qs(urlparse(location).query)
            self.report["redirect_iss"] = query.get("iss", [None])[0]
            self.result = AuthorizationCodeResult(
                code=query["code"][0], state=query.get("state", [None])[0], iss=query.get("iss", [None])[0]
            )

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


async def call_tools(url: str, provider: OAuthClientProvider) -> dict:
    async with httpx2.AsyncClient(auth=provider, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            ping = await client.call_tool("ping", {})
            projects = await client.call_tool("list_projects", {})
            return {
                "ping": ping.structured_content,
                "projects": [p["name"] for p in projects.structured_content["projects"]],
            }


async def main(url: str, email: str, password: str) -> dict:
    parsed = urlparse(url)
    base = f"{parsed.scheme}://{parsed.netloc}"
    report: dict = {}
    storage = MemoryStorage()
    browser = Browser(base, email, password, report)
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="Cassis OAuth test",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )

    # 401, discovery, registration, sign-in, consent, code exchange, tools.
    report["first"] = await call_tools(url, provider)
    report["client_id"] = storage.client_info.client_id if storage.client_info else None
    first_tokens = storage.tokens
    report["token_type"] = first_tokens.token_type
    report["access_token_is_jwt"] = first_tokens.access_token.count(".") == 2
    report["has_refresh_token"] = bool(first_tokens.refresh_token)

    # The access token expires: the SDK refreshes without the user, and the
    # refresh token rotates.
    provider.context.token_expiry_time = time.time() - 1
    browser.result = None
    report["after_expiry"] = await call_tools(url, provider)
    second_tokens = storage.tokens
    report["refreshed"] = second_tokens.access_token != first_tokens.access_token
    report["refresh_rotated"] = second_tokens.refresh_token != first_tokens.refresh_token
    report["browser_steps_after_expiry"] = len(report["browser"])

    async with httpx2.AsyncClient(base_url=base, timeout=30) as raw:
        # The retired refresh token no longer works (and replaying it revokes the grant).
        replay = await raw.post(
            "/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": first_tokens.refresh_token,
                "client_id": report["client_id"],
            },
        )
        report["replayed_refresh"] = {"status": replay.status_code, "error": replay.json().get("error")}
        headers = {
            "Authorization": f"Bearer {second_tokens.access_token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        }
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ping", "arguments": {}}}
        after = await raw.post(parsed.path, json=body, headers=headers)
        report["after_replay"] = {
            "status": after.status_code,
            "www_authenticate": after.headers.get("www-authenticate"),
        }
    return report


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))))
