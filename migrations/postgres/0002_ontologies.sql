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
CREATE FUNCTION ontology_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM projects WHERE id = OLD.project_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'published ontology versions are immutable';
END
$$;

CREATE TRIGGER ontology_versions_immutable
BEFORE UPDATE OR DELETE ON ontology_versions
FOR EACH ROW EXECUTE FUNCTION ontology_versions_immutable();
