-- No single runner decides what the arena cannot check (issue 30): each
-- runner's give-backs and build failures are kept, so a match is given up
-- and a version marked broken only on the word of two runners (or of the
-- only active one, which is then said).
CREATE TABLE give_backs (
    match_id   BIGINT NOT NULL REFERENCES matches(id),
    runner_id  BIGINT NOT NULL REFERENCES runners(id),
    given_at   BIGINT NOT NULL
);
CREATE INDEX give_backs_by_match ON give_backs(match_id, runner_id);

CREATE TABLE build_failure_reports (
    bot_version_id  BIGINT NOT NULL REFERENCES bot_versions(id),
    runner_id       BIGINT NOT NULL REFERENCES runners(id),
    reported_at     BIGINT NOT NULL,
    PRIMARY KEY (bot_version_id, runner_id)
);

-- A runner whose forfeits or give-backs are an outlier against the other
-- runners' is quarantined: revoked, with the reason the operator reads.
ALTER TABLE runners ADD COLUMN quarantine_reason TEXT;
