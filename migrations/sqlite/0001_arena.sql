-- The arena's whole schema. Forward only: later changes are new files.
-- Times are unix milliseconds; hashes are lowercase hex sha-256.

CREATE TABLE owners (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    -- only the hash of the bearer token is kept: a leaked database leaks no tokens
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL
);

CREATE TABLE runners (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    token_hash    TEXT NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    last_seen_at  INTEGER
);

CREATE TABLE bots (
    id          INTEGER PRIMARY KEY,
    owner_id    INTEGER NOT NULL REFERENCES owners(id),
    name        TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    -- a deleted bot keeps its history (games, ratings) but joins no new tournament
    deleted_at  INTEGER
);

-- A bot folder as submitted: a gzip-compressed tar, stored once per content.
CREATE TABLE artifacts (
    content_hash  TEXT PRIMARY KEY,
    size_bytes    INTEGER NOT NULL CHECK (size_bytes > 0 AND size_bytes <= 16777216),
    data          BLOB NOT NULL,
    created_at    INTEGER NOT NULL
);

CREATE TABLE bot_versions (
    id            INTEGER PRIMARY KEY,
    bot_id        INTEGER NOT NULL REFERENCES bots(id),
    version       INTEGER NOT NULL CHECK (version >= 1),
    content_hash  TEXT NOT NULL REFERENCES artifacts(content_hash),
    -- the parsed cairn-bot.toml as JSON
    manifest      TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    UNIQUE (bot_id, version),
    UNIQUE (bot_id, content_hash)
);

CREATE TABLE tournaments (
    id                 INTEGER PRIMARY KEY,
    owner_id           INTEGER NOT NULL REFERENCES owners(id),
    game               TEXT NOT NULL,
    -- options as a JSON object with sorted keys; `variant` is the same as k=v,k=v
    options            TEXT NOT NULL,
    variant            TEXT NOT NULL,
    seats_per_game     INTEGER NOT NULL CHECK (seats_per_game BETWEEN 2 AND 5),
    games_per_pairing  INTEGER NOT NULL CHECK (games_per_pairing >= 1),
    seed               INTEGER NOT NULL,
    created_at         INTEGER NOT NULL
);

CREATE TABLE tournament_entries (
    tournament_id   INTEGER NOT NULL REFERENCES tournaments(id),
    entry_index     INTEGER NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    PRIMARY KEY (tournament_id, entry_index),
    UNIQUE (tournament_id, bot_version_id)
);

-- One sitting of bots at a table, playing several games in one process life.
CREATE TABLE matches (
    id                INTEGER PRIMARY KEY,
    tournament_id     INTEGER NOT NULL REFERENCES tournaments(id),
    match_index       INTEGER NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('queued', 'leased', 'done')),
    -- bumped at every lease: a report names the lease it was made under
    lease_generation  INTEGER NOT NULL DEFAULT 0,
    lease_holder      INTEGER REFERENCES runners(id),
    lease_expires_at  INTEGER,
    finished_at       INTEGER,
    UNIQUE (tournament_id, match_index)
);
CREATE INDEX matches_by_status ON matches(status, id);

CREATE TABLE seats (
    match_id        INTEGER NOT NULL REFERENCES matches(id),
    seat            INTEGER NOT NULL CHECK (seat >= 0),
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    PRIMARY KEY (match_id, seat)
);

CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    match_id    INTEGER NOT NULL REFERENCES matches(id),
    game_index  INTEGER NOT NULL,
    seed        INTEGER NOT NULL,
    UNIQUE (match_id, game_index)
);

-- Written once per game; the autoincrement id is the order ratings replay in.
CREATE TABLE results (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id      INTEGER NOT NULL UNIQUE REFERENCES games(id),
    runner_id    INTEGER REFERENCES runners(id),
    replay       BLOB,
    recorded_at  INTEGER NOT NULL
);

CREATE TABLE result_seats (
    game_id         INTEGER NOT NULL REFERENCES results(game_id),
    seat            INTEGER NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    score           INTEGER NOT NULL,
    rank            INTEGER NOT NULL CHECK (rank >= 1),
    forfeit_reason  TEXT,
    forfeit_detail  TEXT,
    PRIMARY KEY (game_id, seat)
);

-- The current rating of each bot version, per game, variant and model.
CREATE TABLE ratings (
    game            TEXT NOT NULL,
    variant         TEXT NOT NULL,
    model           TEXT NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    rating          REAL NOT NULL,
    uncertainty     REAL NOT NULL,
    volatility      REAL NOT NULL,
    games           INTEGER NOT NULL,
    wins            INTEGER NOT NULL,
    draws           INTEGER NOT NULL,
    losses          INTEGER NOT NULL,
    forfeits        INTEGER NOT NULL,
    PRIMARY KEY (game, variant, model, bot_version_id)
);

CREATE TABLE rating_history (
    id              INTEGER PRIMARY KEY,
    result_id       INTEGER NOT NULL REFERENCES results(id),
    game            TEXT NOT NULL,
    variant         TEXT NOT NULL,
    model           TEXT NOT NULL,
    bot_version_id  INTEGER NOT NULL REFERENCES bot_versions(id),
    rating_before   REAL NOT NULL,
    rating_after    REAL NOT NULL,
    uncertainty     REAL NOT NULL
);
CREATE INDEX rating_history_by_key ON rating_history(game, variant, model, bot_version_id);
