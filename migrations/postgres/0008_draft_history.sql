-- The draft gets a revision, so a save can say which draft it replaces and
-- be refused when someone else saved in between, and every replaced draft
-- is kept (the last 50 per project) so lost work can be restored.

ALTER TABLE ontology_drafts ADD COLUMN revision BIGINT NOT NULL DEFAULT 1;
ALTER TABLE ontology_drafts ADD COLUMN reason TEXT NOT NULL DEFAULT '';

-- A replaced draft: its body, and who made it, when and why.
CREATE TABLE ontology_draft_history (
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    revision    BIGINT NOT NULL,
    body        TEXT NOT NULL,
    saved_by    TEXT REFERENCES users (id),
    saved_at    BIGINT NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (project_id, revision)
);
