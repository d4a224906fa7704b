-- One editable draft per project, and its published versions 1, 2, 3, ...
-- Bodies are the ontology as JSON; a version's body carries its lexicon
-- inputs (names, synonyms, known values), so answers on a pinned version
-- never change after the draft is edited.

CREATE TABLE ontology_drafts (
    project_id  TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    body        TEXT NOT NULL,
    updated_by  TEXT REFERENCES users (id),
    updated_at  BIGINT NOT NULL
);

CREATE TABLE ontology_versions (
    project_id    TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    version       BIGINT NOT NULL,
    body          TEXT NOT NULL,
    published_by  TEXT NOT NULL REFERENCES users (id),
    published_at  BIGINT NOT NULL,
    note          TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (project_id, version)
);

-- A published version never changes, whatever path a write takes. It goes
-- only with its project.
CREATE TRIGGER ontology_versions_never_change
BEFORE UPDATE ON ontology_versions
BEGIN
    SELECT RAISE(ABORT, 'published ontology versions are immutable');
END;

CREATE TRIGGER ontology_versions_stay_with_their_project
BEFORE DELETE ON ontology_versions
WHEN EXISTS (SELECT 1 FROM projects WHERE id = OLD.project_id)
BEGIN
    SELECT RAISE(ABORT, 'published ontology versions are immutable');
END;
