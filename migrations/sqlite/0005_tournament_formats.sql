-- no-transaction
-- Tournament formats (issue 11). A tournament has a format: round-robin
-- (everything planned at creation), gauntlet (challengers against the
-- field, optionally stopped early by an SPRT), swiss (one round at a time)
-- or knockout (one bracket round at a time), or a continuous ladder (new
-- bot versions join it and play until their interval is narrow enough). Solo games (one seat, against
-- the game itself) are tournaments of one seat per table.
--
-- SQLite cannot change a CHECK in place: the table is rebuilt as SQLite's
-- documented procedure does, with foreign keys off (a pragma that has no
-- effect inside a transaction, hence no-transaction and our own BEGIN),
-- so dropping the old table does not touch the entries and matches that
-- refer to it by name; they refer to the new one once it takes the name.
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE tournaments_with_formats (
    id                 INTEGER PRIMARY KEY,
    owner_id           INTEGER NOT NULL REFERENCES owners(id),
    game               TEXT NOT NULL,
    options            TEXT NOT NULL,
    variant            TEXT NOT NULL,
    -- 1 only for a solo game (the arena checks the game with the engine)
    seats_per_game     INTEGER NOT NULL CHECK (seats_per_game BETWEEN 1 AND 5),
    games_per_pairing  INTEGER NOT NULL CHECK (games_per_pairing >= 1),
    seed               INTEGER NOT NULL,
    created_at         INTEGER NOT NULL,
    planned_matches    INTEGER,
    planning_done      INTEGER NOT NULL DEFAULT 1,
    format             TEXT NOT NULL DEFAULT 'round-robin'
                       CHECK (format IN ('round-robin', 'gauntlet', 'swiss', 'knockout', 'ladder')),
    -- swiss: the number of rounds
    rounds             INTEGER NOT NULL DEFAULT 0 CHECK (rounds >= 0),
    -- ladder: the 95% interval width (elo points) an entry plays down to
    ladder_width       INTEGER NOT NULL DEFAULT 0 CHECK (ladder_width >= 0),
    -- gauntlet: the challengers' entry indices, a JSON array
    challengers        TEXT NOT NULL DEFAULT '[]',
    -- gauntlet with an SPRT: its parameters, then its log-likelihood ratio
    -- and verdict ('h0' or 'h1') once decided; the undecided matches are
    -- then dropped
    sprt_elo0          REAL,
    sprt_elo1          REAL,
    sprt_alpha         REAL,
    sprt_beta          REAL,
    sprt_llr           REAL,
    sprt_verdict       TEXT CHECK (sprt_verdict IN ('h0', 'h1'))
);
INSERT INTO tournaments_with_formats (id, owner_id, game, options, variant, seats_per_game, games_per_pairing, seed, created_at, planned_matches, planning_done)
    SELECT id, owner_id, game, options, variant, seats_per_game, games_per_pairing, seed, created_at, planned_matches, planning_done
    FROM tournaments;
DROP TABLE tournaments;
ALTER TABLE tournaments_with_formats RENAME TO tournaments;
PRAGMA foreign_key_check;
-- The round a match belongs to (0 for everything a round robin plans).
ALTER TABLE matches ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
COMMIT;
PRAGMA foreign_keys = ON;
