-- One row per MCP tool call, for the activity view and audits: who called
-- which tool, with which credential, on which project, how it ended and how
-- long it took. Arguments and answers are not copied here; chats keep those.

CREATE TABLE tool_calls (
    id               TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL REFERENCES organizations (id),
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The API key used, or NULL for an OAuth access token.
    api_key_id       TEXT REFERENCES api_keys (id) ON DELETE SET NULL,
    tool             TEXT NOT NULL,
    -- As the caller sent it; not a foreign key, since a call may name a
    -- project that does not exist or that the caller may not see.
    project_id       TEXT,
    status           TEXT NOT NULL,
    duration_ms      BIGINT NOT NULL,
    created_at       BIGINT NOT NULL
);
CREATE INDEX tool_calls_organization_time ON tool_calls (organization_id, created_at);
