-- Validation and suspensions: see migrations/sqlite/0032_validation_issue32.sql.
ALTER TABLE bot_versions ADD COLUMN validation TEXT NOT NULL DEFAULT 'ready'
    CHECK (validation IN ('validating', 'ready', 'failed'));
ALTER TABLE bot_versions ADD COLUMN validation_failure TEXT;
ALTER TABLE tournaments ADD COLUMN validates BIGINT REFERENCES bot_versions(id);
ALTER TABLE tournaments ADD COLUMN max_forfeit_rate DOUBLE PRECISION;
CREATE TABLE tournament_suspensions (
    tournament_id   BIGINT NOT NULL REFERENCES tournaments(id),
    bot_version_id  BIGINT NOT NULL REFERENCES bot_versions(id),
    games           BIGINT NOT NULL,
    forfeits        BIGINT NOT NULL,
    reason          TEXT NOT NULL,
    suspended_at    BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, bot_version_id)
);
CREATE TABLE forfeit_tallies (
    tournament_id   BIGINT NOT NULL REFERENCES tournaments(id),
    bot_version_id  BIGINT NOT NULL REFERENCES bot_versions(id),
    games           BIGINT NOT NULL,
    forfeits        BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, bot_version_id)
);
CREATE INDEX tournaments_by_validated_version ON tournaments(validates);
