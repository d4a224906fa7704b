-- Chats with the question engine, from MCP clients, the playground and the
-- CLI. A chat is pinned to the ontology version current when it started;
-- each turn keeps its question, its plan (what a follow-up refines or an
-- approval executes) and the exact response, so any instance can continue
-- any chat and the data team can review what was asked.

CREATE TABLE chats (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL REFERENCES organizations (id),
    project_id        TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id           TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    ontology_version  BIGINT NOT NULL,
    -- mcp, playground or cli.
    client            TEXT NOT NULL,
    created_at        BIGINT NOT NULL
);
CREATE INDEX chats_project_time ON chats (project_id, created_at);

CREATE TABLE chat_turns (
    chat_id      TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    turn         BIGINT NOT NULL,
    question     TEXT NOT NULL,
    status       TEXT NOT NULL,
    -- The semantic plan as JSON; NULL when there was none.
    plan         TEXT,
    -- 1 when this turn executed the plan the previous turn left pending.
    approval     BIGINT NOT NULL,
    -- The response exactly as returned, as JSON.
    response     TEXT NOT NULL,
    duration_ms  BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (chat_id, turn)
);
