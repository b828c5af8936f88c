-- Session queue reads name the session and its owner. With only the
-- (user_id, card_id) index to match both, the planner scanned every queue
-- item the user ever had, so reviews slowed down as sessions piled up.

-- +goose Up
CREATE INDEX study_session_items_session_user ON study_session_items (session_id, user_id, position);

-- +goose Down
DROP INDEX study_session_items_session_user;
