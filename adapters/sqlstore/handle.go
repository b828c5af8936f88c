package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// handle runs the stores' queries on the database or on one transaction.
// It implements ports.Stores.
type handle struct {
	s    *Store
	q    querier
	inTx bool
}

var _ ports.Stores = (*handle)(nil)

// The individual stores are views of one handle.
type (
	userStore     struct{ *handle }
	deckStore     struct{ *handle }
	cardStore     struct{ *handle }
	noteStore     struct{ *handle }
	reviewStore   struct{ *handle }
	sessionStore  struct{ *handle }
	keyStore      struct{ *handle }
	webStore      struct{ *handle }
	exposureStore struct{ *handle }
	auditStore    struct{ *handle }
	idemStore     struct{ *handle }
	mediaStore    struct{ *handle }
)

// Users returns the user store on h.
func (h *handle) Users() ports.UserStore { return userStore{h} }

// Decks returns the deck store on h.
func (h *handle) Decks() ports.DeckStore { return deckStore{h} }

// Cards returns the card store on h.
func (h *handle) Cards() ports.CardStore { return cardStore{h} }

// Notes returns the note store on h.
func (h *handle) Notes() ports.NoteStore { return noteStore{h} }

// Reviews returns the review store on h.
func (h *handle) Reviews() ports.ReviewStore { return reviewStore{h} }

// Sessions returns the study session store on h.
func (h *handle) Sessions() ports.StudySessionStore { return sessionStore{h} }

// Keys returns the API key store on h.
func (h *handle) Keys() ports.APIKeyStore { return keyStore{h} }

// WebSessions returns the web session store on h.
func (h *handle) WebSessions() ports.WebSessionStore { return webStore{h} }

// Exposure returns the exposure store on h.
func (h *handle) Exposure() ports.ExposureStore { return exposureStore{h} }

// Audit returns the audit store on h.
func (h *handle) Audit() ports.AuditStore { return auditStore{h} }

// Idempotency returns the idempotency store on h.
func (h *handle) Idempotency() ports.IdempotencyStore { return idemStore{h} }

// Media returns the media store on h.
func (h *handle) Media() ports.MediaStore { return mediaStore{h} }

// exec runs a statement on h.
func (h *handle) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return h.q.ExecContext(ctx, q, args...)
}

// execBulk runs a bulk statement whose texts are few (see insertBatches)
// prepared, through the statement cache when there is one.
func (h *handle) execBulk(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if cq, ok := h.q.(cachedQuerier); ok {
		return cq.execBulk(ctx, q, args...)
	}
	return h.q.ExecContext(ctx, q, args...)
}

// queryBulk is execBulk for a statement that returns rows.
func (h *handle) queryBulk(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if cq, ok := h.q.(cachedQuerier); ok {
		return cq.queryBulk(ctx, q, args...)
	}
	return h.q.QueryContext(ctx, q, args...)
}

// atomic runs fn so that either all of its writes stay or none does, and
// so that an expected failure (a duplicate, a missing parent) leaves the
// caller's transaction usable: inside a transaction it runs under a
// savepoint, outside it runs in a transaction of its own.
func (h *handle) atomic(ctx context.Context, fn func(h *handle) error) error {
	if !h.inTx {
		return h.s.runTx(ctx, fn)
	}
	if _, err := h.exec(ctx, "SAVEPOINT sqlstore_atomic"); err != nil {
		return h.s.wrap(ctx, err, "savepoint")
	}
	if err := fn(h); err != nil {
		if _, rbErr := h.exec(ctx, "ROLLBACK TO SAVEPOINT sqlstore_atomic"); rbErr != nil {
			return h.s.wrap(ctx, errors.Join(err, rbErr), "rollback to savepoint")
		}
		_, _ = h.exec(ctx, "RELEASE SAVEPOINT sqlstore_atomic")
		return err
	}
	if _, err := h.exec(ctx, "RELEASE SAVEPOINT sqlstore_atomic"); err != nil {
		return h.s.wrap(ctx, err, "release savepoint")
	}
	return nil
}

// affected returns the number of rows a statement changed.
func (h *handle) affected(ctx context.Context, res sql.Result, err error, op string) (int64, error) {
	if err != nil {
		return 0, h.s.wrap(ctx, err, op)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, h.s.wrap(ctx, err, op)
	}
	return n, nil
}

// exists reports whether a query returns a row.
func (h *handle) exists(ctx context.Context, op, query string, args ...any) (bool, error) {
	var one int
	err := h.q.QueryRowContext(ctx, query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, h.s.wrap(ctx, err, op)
	}
	return true, nil
}

// Messages for the expected failures of one operation; empty ones fall
// back to generic messages.
type failMsgs struct {
	unique string // conflict message on a unique violation
	fk     string // not-found message on a foreign key violation
}

// fail maps a database error to a contracts error with the operation's
// messages. SQL text never reaches a message; the cause is kept for logs.
func (h *handle) fail(ctx context.Context, err error, op string, m failMsgs) error {
	if err == nil {
		return nil
	}
	switch h.s.d.Classify(err) {
	case ClassUnique:
		if m.unique != "" {
			return &contracts.Error{Kind: contracts.KindConflict, Message: m.unique, Err: err}
		}
	case ClassForeignKey:
		if m.fk != "" {
			return &contracts.Error{Kind: contracts.KindNotFound, Message: m.fk, Err: err}
		}
	}
	return h.s.wrap(ctx, err, op)
}

// wrap maps a database error to a contracts error: kinds from the dialect's
// classification, unavailable when the context ended, internal otherwise.
func (s *Store) wrap(ctx context.Context, err error, op string) error {
	if err == nil {
		return nil
	}
	var ce *contracts.Error
	if errors.As(err, &ce) {
		return err
	}
	cause := fmt.Errorf("%s: %s: %w", s.d.Name(), op, err)
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the request was canceled or timed out", Err: errors.Join(cause, ctx.Err())}
	}
	switch s.d.Classify(err) {
	case ClassUnique:
		return &contracts.Error{Kind: contracts.KindConflict, Message: "a record with the same key already exists", Err: cause}
	case ClassForeignKey:
		return &contracts.Error{Kind: contracts.KindNotFound, Message: "a referenced record does not exist", Err: cause}
	case ClassConflict:
		return &contracts.Error{Kind: contracts.KindConflict, Message: "a concurrent change got there first; retry", Err: cause}
	case ClassUnavailable:
		return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the database is busy or unreachable; retry later", Err: cause}
	}
	return contracts.Internal(cause)
}

// notFound returns a not-found error with a message.
func notFound(what string) error {
	return contracts.Errorf(contracts.KindNotFound, "%s not found", what)
}
