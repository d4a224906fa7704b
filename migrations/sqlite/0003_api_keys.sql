-- API keys for agents and scripts: `sk-k6-` and 43 URL-safe characters,
-- stored only as a SHA-256 hash. A key acts for the user who created it.

CREATE TABLE api_keys (
    id               TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL REFERENCES organizations (id),
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    key_hash         TEXT NOT NULL UNIQUE,
    -- The first characters, so people can tell their keys apart in lists.
    display_prefix   TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT,
    last_used_at     BIGINT,
    revoked_at       BIGINT
);
CREATE INDEX api_keys_organization ON api_keys (organization_id);
