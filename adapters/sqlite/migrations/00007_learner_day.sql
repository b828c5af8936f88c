-- The learner's day in the review log and study sessions.
-- review_logs.day is the learner's date of the review (days since
-- 1970-01-01 in their timezone and rollover hour at the time), so stats
-- days and streaks follow the person's day; rows written before it are
-- counted in UTC days. review_logs.kind tells normal reviews from cram
-- reviews (not fed to FSRS, not counted against limits) and manual
-- reschedules. review_logs.prev_interval is the card's interval in days
-- before the review (young below 21, mature from 21; NULL on older rows,
-- counted as young). study_sessions.mode is 'normal' or 'cram'.

-- +goose Up
ALTER TABLE review_logs ADD COLUMN day INTEGER;
UPDATE review_logs SET day = reviewed_at / 86400000;
ALTER TABLE review_logs ADD COLUMN kind TEXT NOT NULL DEFAULT 'review';
ALTER TABLE review_logs ADD COLUMN prev_interval INTEGER;
ALTER TABLE study_sessions ADD COLUMN mode TEXT NOT NULL DEFAULT 'normal';

-- +goose Down
ALTER TABLE study_sessions DROP COLUMN mode;
ALTER TABLE review_logs DROP COLUMN prev_interval;
ALTER TABLE review_logs DROP COLUMN kind;
ALTER TABLE review_logs DROP COLUMN day;
