package domain

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// collectBatch is how many rows one collection pass reads at a time.
const collectBatch = 200

// MediaCollection counts what one collection removed.
type MediaCollection struct {
	Intents int // expired intents, never uploaded (or abandoned mid-upload)
	Unused  int // uploaded files no card or note references any more
	Blobs   int // blobs no media row uses any more
	Staged  int // staged blobs an interrupted upload left behind
}

// CollectMedia deletes, for every account, what no one can use any more:
// intents expired more than MediaGrace ago, uploads no card or note
// references (trashed cards count as references) uploaded more than
// MediaGrace ago, the blobs only those used, and staged blobs older than
// MediaGrace. It is an operator's and a timer's action: it needs no
// principal. Each deletion runs under its account's media lock and checks
// again there, so several instances may collect at once, and an upload or
// a card write racing with it keeps its file.
func (s *MediaService) CollectMedia(ctx context.Context) (MediaCollection, error) {
	var c MediaCollection
	before := s.now().Add(-s.cfg.MediaGrace)
	for {
		rows, err := s.store.Media().ExpiredIntents(ctx, before, collectBatch)
		if err != nil {
			return c, fail(err)
		}
		n := 0
		for _, m := range rows {
			gone, _, err := s.collectOne(ctx, m, false)
			if err != nil {
				return c, err
			}
			if gone {
				n++
				c.Intents++
			}
		}
		if len(rows) < collectBatch || n == 0 {
			break
		}
	}
	after := ""
	for {
		rows, err := s.store.Media().UnusedMedia(ctx, before, after, collectBatch)
		if err != nil {
			return c, fail(err)
		}
		for _, m := range rows {
			after = m.ID
			gone, blob, err := s.collectOne(ctx, m, true)
			if err != nil {
				return c, err
			}
			if gone {
				c.Unused++
			}
			if blob {
				c.Blobs++
			}
		}
		if len(rows) < collectBatch {
			break
		}
	}
	if s.blobs != nil {
		n, err := s.blobs.PurgeStaged(ctx, before)
		if err != nil {
			return c, fail(err)
		}
		c.Staged = n
	}
	return c, nil
}

// collectOne deletes one media row under its account's lock after checking
// again that it is still collectable, and its blob when no other row of the
// account uses it.
func (s *MediaService) collectOne(ctx context.Context, m ports.MediaRow, uploaded bool) (gone, blobGone bool, err error) {
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		gone, blobGone = false, false
		md := tx.Media()
		if err := md.LockMedia(ctx, m.UserID); err != nil {
			if contracts.IsKind(err, contracts.KindNotFound) {
				return nil // the account went meanwhile
			}
			return fail(err)
		}
		cur, err := md.MediaByID(ctx, m.ID)
		if contracts.IsKind(err, contracts.KindNotFound) {
			return nil
		}
		if err != nil {
			return fail(err)
		}
		if uploaded {
			used, err := md.MediaInUse(ctx, m.UserID, m.ID)
			if err != nil {
				return fail(err)
			}
			if used || cur.UploadedAt == nil {
				return nil
			}
		} else if cur.UploadedAt != nil {
			return nil
		}
		if err := md.DeleteMedia(ctx, m.UserID, m.ID); err != nil && !contracts.IsKind(err, contracts.KindNotFound) {
			return fail(err)
		}
		gone = true
		if cur.UploadedAt == nil || s.blobs == nil {
			return nil
		}
		if cur.SHA256 != "" {
			inUse, err := md.BlobInUse(ctx, m.UserID, cur.SHA256)
			if err != nil {
				return fail(err)
			}
			if inUse {
				return nil
			}
		}
		// Deleting the file inside the transaction: an upload of equal
		// bytes waits for the lock and files them again afterwards.
		if err := s.blobs.DeleteBlob(ctx, MediaBlobKey(cur)); err != nil {
			return fail(err)
		}
		blobGone = true
		return nil
	})
	return gone, blobGone, err
}
