-- Several instances share this database, and each keeps some of it in memory
-- (verified credentials, signing keys, project connections). These triggers
-- tell every instance what changed, on the channel `cassis_changes`, when the
-- changing transaction commits, so a revoked key or a disabled user is refused
-- everywhere at once whoever changed it (a server, the CLI, an operator's SQL).
-- The payload is `TABLE` or `TABLE:ID`; core/src/store/changes.rs reads it.
-- SQLite serves one instance, which needs no telling: it has no counterpart.

CREATE FUNCTION cassis_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed TEXT;
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN
        changed := TG_TABLE_NAME;
    ELSIF TG_OP = 'DELETE' THEN
        changed := TG_TABLE_NAME || ':' || (to_jsonb(OLD) ->> TG_ARGV[0]);
    ELSE
        changed := TG_TABLE_NAME || ':' || (to_jsonb(NEW) ->> TG_ARGV[0]);
    END IF;
    PERFORM pg_notify('cassis_changes', changed);
    RETURN NULL;
END;
$$;

-- Credentials: only what decides whether a key, token or user is accepted.
-- A key's or grant's last use is written on every first use, and must not
-- empty every instance's cache each time.
CREATE TRIGGER api_keys_changed
    AFTER UPDATE OF revoked_at, expires_at, user_id OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION cassis_notify_change();
CREATE TRIGGER oauth_grants_changed
    AFTER UPDATE OF revoked_at, user_id OR DELETE ON oauth_grants
    FOR EACH STATEMENT EXECUTE FUNCTION cassis_notify_change();
-- Any change of a user: disabled, another role or organization, deleted.
CREATE TRIGGER users_changed
    AFTER UPDATE OR DELETE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION cassis_notify_change();
CREATE TRIGGER oauth_signing_keys_changed
    AFTER INSERT OR UPDATE OR DELETE ON oauth_signing_keys
    FOR EACH STATEMENT EXECUTE FUNCTION cassis_notify_change();

-- A project given another data source, or deleted (its source goes with
-- it, by the cascade), has its open warehouse connections closed on every
-- instance.
CREATE TRIGGER data_sources_changed
    AFTER INSERT OR UPDATE OR DELETE ON data_sources
    FOR EACH ROW EXECUTE FUNCTION cassis_notify_change('project_id');
-- No trigger on a publish: every question reads the latest version number
-- from here, and what is kept in memory is per version, which never changes.
