package kernel

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Changes collects one mutation's change records (contracts.ChangeRecord):
// each room's mutation adds one per item it changed, with the previous
// values of the fields it set, and writes them with Write in its
// transaction, in one statement. A dry run collects them too: the first
// of them are its preview.
type Changes struct {
	recs    []contracts.ChangeRecord
	preview []contracts.ChangePreview
}

// Add records that the mutation changed item id of kind, leaving it at
// version; prev holds the previous values of the fields it set and after
// their new values (both JSON objects, nil for additions and deletions).
func (c *Changes) Add(kind contracts.ChangeKind, id string, version int64, prev, after map[string]any) {
	rec := contracts.ChangeRecord{Kind: kind, ItemID: id, Version: version, Prev: compact(prev)}
	c.recs = append(c.recs, rec)
	if len(c.preview) < contracts.MaxPreviewChanges {
		c.preview = append(c.preview, contracts.ChangePreview{Kind: kind, ID: id, Before: rec.Prev, After: compact(after)})
	}
}

// Len is the number of records collected.
func (c *Changes) Len() int { return len(c.recs) }

// Preview returns the first contracts.MaxPreviewChanges changes, before
// and after.
func (c *Changes) Preview() []contracts.ChangePreview { return c.preview }

// Write appends the records through st for the acting principal, under
// the operation id in ctx (one is made when the call came through no door
// that mints one, so its records still undo together). It fills ids,
// times and the credential. Nothing is written when there is no record.
func (c *Changes) Write(ctx context.Context, st ports.Stores, d *Deps) error {
	if len(c.recs) == 0 {
		return nil
	}
	p, err := Actor(ctx)
	if err != nil {
		return err
	}
	op, ok := contracts.OperationIDFrom(ctx)
	if !ok {
		op = d.IDs.NewID()
	}
	now := d.Now()
	for i := range c.recs {
		r := &c.recs[i]
		r.ID, r.OperationID, r.UserID = d.IDs.NewID(), op, p.UserID
		r.CredentialKind, r.CredentialID = p.CredentialKind, p.CredentialID
		r.At, r.ExpiresAt = now, now.Add(contracts.ChangeTTL)
	}
	return Fail(st.Changes().AppendChanges(ctx, p.UserID, c.recs))
}

func compact(v map[string]any) json.RawMessage {
	if len(v) == 0 {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// errDryRun rolls back a dry run's transaction.
var errDryRun = errors.New("dry run: rolled back")

// InTxOrDry runs fn in a transaction as the real call does; when dry is
// set the transaction is rolled back after fn succeeds, so a dry run goes
// through the very same code (the same validation, the same outcomes)
// and writes nothing.
func InTxOrDry(ctx context.Context, st ports.TxRunner, dry bool, fn func(tx ports.Stores) error) error {
	err := st.InTx(ctx, func(tx ports.Stores) error {
		if err := fn(tx); err != nil {
			return err
		}
		if dry {
			return errDryRun
		}
		return nil
	})
	if dry && errors.Is(err, errDryRun) {
		return nil
	}
	return err
}

// ApplyOrDry runs fn, a mutation made of store calls through st: for
// real in the call transaction (joined when the call has one, as a tool
// call's mutation and audit row share one; begun otherwise), so its
// store calls cost what they cost outside any transaction of the
// domain's; when dry, in a transaction of its own rolled back after fn
// succeeds, through the very same fn.
func ApplyOrDry(ctx context.Context, db ports.Database, dry bool, fn func(ctx context.Context, st ports.Stores) error) error {
	if dry {
		return InTxOrDry(ctx, db, true, func(tx ports.Stores) error { return fn(ctx, tx) })
	}
	return db.InCallTx(ctx, func(ctx context.Context) error { return fn(ctx, db) })
}
