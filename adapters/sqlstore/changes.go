package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// changeStore is the change-record store on one handle.
type changeStore struct{ *handle }

// Changes returns the change-record store on h.
func (h *handle) Changes() ports.ChangeStore { return changeStore{h} }

// Changes returns the change-record store outside any transaction.
func (s *Store) Changes() ports.ChangeStore { return s.root.Changes() }

const changeCols = `id, user_id, operation_id, credential_kind, credential_id, kind, item_id, version, prev, at, expires_at, undone_by`

// changeInsertChunk bounds the rows of one multi-row INSERT (12
// placeholders a row): a bulk call's up to 1,000 records are one statement.
const changeInsertChunk = 1000

// AppendChanges inserts the records, one statement a chunk; more than one
// chunk runs under a savepoint so that none or all are kept. The records
// of one mutation (one operation, credential and time: what
// kernel.Changes writes) go in one statement of a fixed text, prepared
// once per connection, their own fields in one JSON argument
// (appendUniform); others are a multi-row INSERT.
func (s changeStore) AppendChanges(ctx context.Context, userID string, recs []contracts.ChangeRecord) error {
	if len(recs) == 0 {
		return nil
	}
	if uniform(recs) {
		return s.appendUniform(ctx, userID, recs)
	}
	write := func(h *handle) error {
		var b strings.Builder
		for _, chunk := range chunks(recs, changeInsertChunk) {
			b.Reset()
			b.WriteString(`INSERT INTO change_records (` + changeCols + `) VALUES `)
			a := make(args, 0, len(chunk)*12)
			for i, r := range chunk {
				if i > 0 {
					b.WriteByte(',')
				}
				var prev any
				if len(r.Prev) > 0 {
					prev = string(r.Prev)
				}
				b.WriteByte('(')
				b.WriteString(seq(&a, h.s.d, []any{r.ID, userID, r.OperationID, string(r.CredentialKind), r.CredentialID,
					string(r.Kind), r.ItemID, r.Version, prev, ms(r.At), ms(r.ExpiresAt), r.UndoneBy}))
				b.WriteByte(')')
			}
			if _, err := h.exec(ctx, b.String(), a...); err != nil {
				return h.fail(ctx, err, "append changes", failMsgs{unique: "a change record with this id already exists", fk: "user not found"})
			}
		}
		return nil
	}
	if len(recs) <= changeInsertChunk {
		return write(s.handle)
	}
	return s.atomic(ctx, write)
}

// uniform reports whether the records share their operation, credential,
// times and undo.
func uniform(recs []contracts.ChangeRecord) bool {
	a := recs[0]
	for _, r := range recs[1:] {
		if r.OperationID != a.OperationID || r.CredentialKind != a.CredentialKind || r.CredentialID != a.CredentialID ||
			!r.At.Equal(a.At) || !r.ExpiresAt.Equal(a.ExpiresAt) || r.UndoneBy != a.UndoneBy {
			return false
		}
	}
	return true
}

// Uniform records' INSERTs: the shared fields are arguments, each record's
// own (id, kind, item, version, prev as a JSON string or null) an element
// of the JSON array in the last argument. One text whatever the count:
// parsed once per connection, 8 arguments to bind instead of 12 a row
// (update_cards of 100 cards spent a quarter of its records' cost
// parsing and binding the multi-row INSERT, issue 26 §2.4). SQLite reads
// the array as JSONB (jsonb_each: the text is parsed once, its elements
// are read without parsing them again).
const (
	changeUniformSQLite = `INSERT INTO change_records (` + changeCols + `) SELECT value ->> 0, $1, $2, $3, $4, ` +
		`value ->> 1, value ->> 2, value ->> 3, value ->> 4, $5, $6, $7 FROM jsonb_each($8)`
	changeUniformPostgres = `INSERT INTO change_records (` + changeCols + `) SELECT e->>0, $1, $2, $3, $4, ` +
		`e->>1, e->>2, (e->>3)::bigint, e->>4, $5, $6, $7 FROM json_array_elements($8::json) AS t(e)`
)

// appendUniform inserts records that share operation, credential, times
// and undo in one statement.
func (s changeStore) appendUniform(ctx context.Context, userID string, recs []contracts.ChangeRecord) error {
	q := changeUniformSQLite
	if s.s.d.Name() == "postgres" {
		q = changeUniformPostgres
	}
	a := recs[0]
	_, err := s.exec(ctx, q, userID, a.OperationID, string(a.CredentialKind), a.CredentialID, ms(a.At), ms(a.ExpiresAt), a.UndoneBy, changeRows(recs))
	return s.fail(ctx, err, "append changes", failMsgs{unique: "a change record with this id already exists", fk: "user not found"})
}

// changeRows is the JSON array of the records' own fields, [id, kind,
// item, version, prev] each, prev a JSON string (its text) or null,
// appended by hand (issue 26 §2.4): encoding/json's reflection over
// [][5]any with a string per prev took 65 µs and 504 allocations for 100
// records, this 31 µs and 2.
func changeRows(recs []contracts.ChangeRecord) string {
	n := 2
	for _, r := range recs {
		n += len(r.ID) + len(r.Kind) + len(r.ItemID) + len(r.Prev)*5/4 + 40
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, r := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendJSONString(b, r.ID)
		b = append(b, ',')
		b = appendJSONString(b, string(r.Kind))
		b = append(b, ',')
		b = appendJSONString(b, r.ItemID)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.Version, 10)
		b = append(b, ',')
		if len(r.Prev) > 0 {
			b = appendJSONBytes(b, r.Prev)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, ']')
	}
	return string(append(b, ']'))
}

// ListChanges returns up to limit of the user's records matching f,
// newest (highest id) first, with ids below beforeID.
func (s changeStore) ListChanges(ctx context.Context, userID string, f contracts.ChangeFilter, beforeID string, limit int) ([]contracts.ChangeRecord, error) {
	out := []contracts.ChangeRecord{}
	if limit <= 0 {
		return out, nil
	}
	var a args
	q := `SELECT ` + changeCols + ` FROM change_records WHERE user_id = ` + a.add(userID)
	if len(f.OperationIDs) > 0 {
		q += ` AND operation_id IN (` + list(&a, dedupe(f.OperationIDs)) + `)`
	}
	if f.Pending {
		q += ` AND undone_by = ''`
	}
	if f.ExceptUndos {
		u, undo := a.add(userID), a.add(string(contracts.ChangeReviewUndo))
		q += ` AND kind <> ` + undo + ` AND operation_id NOT IN (SELECT undone_by FROM change_records WHERE user_id = ` + u +
			` AND undone_by <> '' UNION SELECT operation_id FROM change_records WHERE user_id = ` + u + ` AND kind = ` + undo + `)`
	}
	q += newestFirst(&a, f.CredentialID, f.Since, f.Until, beforeID, limit)
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "list changes")
	}
	defer rows.Close()
	for rows.Next() {
		var r contracts.ChangeRecord
		var credKind, kind string
		var prev sql.NullString
		var at, expires int64
		if err := rows.Scan(&r.ID, &r.UserID, &r.OperationID, &credKind, &r.CredentialID, &kind, &r.ItemID, &r.Version,
			&prev, &at, &expires, &r.UndoneBy); err != nil {
			return nil, s.s.wrap(ctx, err, "list changes")
		}
		if prev.Valid {
			r.Prev = json.RawMessage(prev.String)
		}
		r.CredentialKind, r.Kind = contracts.CredentialKind(credKind), contracts.ChangeKind(kind)
		r.At, r.ExpiresAt = fromMs(at), fromMs(expires)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "list changes")
	}
	return out, nil
}

// MarkUndone marks the user's records among ids that are not undone yet.
func (s changeStore) MarkUndone(ctx context.Context, userID string, ids []string, undoneBy string) (int, error) {
	total := 0
	for _, chunk := range chunks(dedupe(ids), inChunk) {
		var a args
		q := `UPDATE change_records SET undone_by = ` + a.add(undoneBy) + ` WHERE user_id = ` + a.add(userID) +
			` AND undone_by = '' AND id IN (` + list(&a, chunk) + `)`
		res, err := s.exec(ctx, q, a...)
		n, err := s.affected(ctx, res, err, "mark changes undone")
		if err != nil {
			return total, err
		}
		total += int(n)
	}
	return total, nil
}

// OperationStates counts the records and the reviews, and the undone
// ones, and the live reviews logged before reviewsSince, of each of the
// user's operations among operationIDs, in one statement a chunk.
func (s changeStore) OperationStates(ctx context.Context, userID string, operationIDs []string, reviewsSince time.Time) (map[string]ports.OperationState, error) {
	out := map[string]ports.OperationState{}
	for _, chunk := range chunks(dedupe(operationIDs), inChunk) {
		var a args
		u, in, since := a.add(userID), list(&a, chunk), a.add(ms(reviewsSince))
		q := `SELECT operation_id, COUNT(*), SUM(undone), SUM(too_old) FROM (
SELECT operation_id, CASE WHEN undone_by = '' THEN 0 ELSE 1 END AS undone, 0 AS too_old FROM change_records
WHERE user_id = ` + u + ` AND operation_id IN (` + in + `)
UNION ALL
SELECT operation_id, CASE WHEN kind IN (` + undoneKinds + `) THEN 1 ELSE 0 END,
CASE WHEN kind IN ` + liveKinds + ` AND reviewed_at < ` + since + ` THEN 1 ELSE 0 END FROM review_logs
WHERE user_id = ` + u + ` AND operation_id IN (` + in + `)) x GROUP BY operation_id`
		rows, err := s.q.QueryContext(ctx, q, a...)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "operation states")
		}
		for rows.Next() {
			var op string
			var st ports.OperationState
			if err := rows.Scan(&op, &st.Records, &st.Undone, &st.TooOld); err != nil {
				rows.Close()
				return nil, s.s.wrap(ctx, err, "operation states")
			}
			out[op] = st
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, s.s.wrap(ctx, err, "operation states")
		}
	}
	return out, nil
}
