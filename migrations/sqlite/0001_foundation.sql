-- Organizations, users, browser sessions, projects and their data sources.
-- Ids are UUID text and times are Unix milliseconds, the same on both backends.

CREATE TABLE organizations (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE users (
    id               TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL REFERENCES organizations (id),
    email            TEXT NOT NULL UNIQUE,
    password_hash    TEXT NOT NULL,
    role             TEXT NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
    created_at       BIGINT NOT NULL,
    disabled_at      BIGINT
);

CREATE TABLE sessions (
    token_hash  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

CREATE TABLE projects (
    id               TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL REFERENCES organizations (id),
    name             TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    created_at       BIGINT NOT NULL,
    UNIQUE (organization_id, name)
);

CREATE TABLE data_sources (
    project_id      TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    dialect         TEXT NOT NULL,
    connection_url  TEXT,
    created_at      BIGINT NOT NULL
);

-- One-off facts about this installation, such as "the demo project was created".
CREATE TABLE instance_settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
