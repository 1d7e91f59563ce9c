-- The SPRT's Elo scale: see migrations/sqlite/0029_sprt_model.sql.
ALTER TABLE tournaments ADD COLUMN sprt_model TEXT;
