-- Who may use a project: everyone in its organization (the default), or only
-- admins and the members listed for it.

ALTER TABLE projects ADD COLUMN access TEXT NOT NULL DEFAULT 'organization';

CREATE TABLE project_members (
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    granted_at  BIGINT NOT NULL,
    PRIMARY KEY (project_id, user_id)
);

CREATE INDEX project_members_user ON project_members (user_id);
