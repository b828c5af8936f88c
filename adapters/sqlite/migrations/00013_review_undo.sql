-- A rating given in a study session can be undone: each review log keeps
-- the card's whole schedule from before the review (JSON of
-- contracts.CardState), which the undo puts back. NULL for logs written
-- before this column and for manual entries: those cannot be undone.

-- +goose Up
ALTER TABLE review_logs ADD COLUMN prev_state TEXT;

-- +goose Down
ALTER TABLE review_logs DROP COLUMN prev_state;
