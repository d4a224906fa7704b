-- Cassis as an OAuth 2.1 authorization server for MCP clients.
--
-- Clients register dynamically (RFC 7591) or are known by the URL of their
-- metadata document; a user's approval yields a single-use authorization
-- code; exchanging it starts a grant, whose refresh tokens rotate on every
-- use (only hashes are stored); reusing a retired one revokes the grant.
-- Access tokens are JWTs signed with a key kept here and published as JWKS.

CREATE TABLE oauth_signing_keys (
    -- The JWT `kid`.
    id            TEXT PRIMARY KEY,
    -- Ed25519 private key, PKCS#8 DER in base64.
    private_key   TEXT NOT NULL,
    -- Ed25519 public key, 32 bytes in base64url.
    public_key    TEXT NOT NULL,
    created_at    BIGINT NOT NULL
);

CREATE TABLE oauth_clients (
    -- Issued by registration, or the https URL of a metadata document.
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    -- JSON array of exact redirect URIs.
    redirect_uris   TEXT NOT NULL,
    -- registered or metadata_document.
    kind            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    -- When a metadata document was last fetched.
    fetched_at      BIGINT
);

CREATE TABLE oauth_codes (
    code_hash        TEXT PRIMARY KEY,
    client_id        TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    organization_id  TEXT NOT NULL REFERENCES organizations (id),
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    redirect_uri     TEXT NOT NULL,
    code_challenge   TEXT NOT NULL,
    resource         TEXT NOT NULL,
    scope            TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    used_at          BIGINT,
    -- The grant the exchange started, revoked if the code is replayed.
    grant_id         TEXT
);

CREATE TABLE oauth_grants (
    id               TEXT PRIMARY KEY,
    client_id        TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    organization_id  TEXT NOT NULL REFERENCES organizations (id),
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    resource         TEXT NOT NULL,
    scope            TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    last_used_at     BIGINT NOT NULL,
    revoked_at       BIGINT
);
CREATE INDEX oauth_grants_user ON oauth_grants (user_id);

CREATE TABLE oauth_refresh_tokens (
    token_hash   TEXT PRIMARY KEY,
    grant_id     TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    -- Set when rotated away or revoked; presenting it again revokes the grant.
    retired_at   BIGINT
);
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
