-- Issue 29: the Elo scale a gauntlet's SPRT bounds are written in
-- ('normalized'); NULL is logistic Elo, the scale of every SPRT stored
-- before.
ALTER TABLE tournaments ADD COLUMN sprt_model TEXT;
