package library

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Media collection runs as jobs of the purge scheduler every instance runs
// (expired intents are the purge's upload_intents kind):
//   - CollectUnused deletes uploads no card or note references any more,
//     trashed cards counting as references, once MediaGrace has passed
//     since the upload, with their blob when no other row of the account
//     has the same bytes;
//   - PurgeStagedBlobs deletes the staged blobs of uploads that were
//     interrupted (a crash, a lost connection) MediaGrace ago.
//
// Each deletion runs under its account's media lock and checks again
// there, so several instances may collect at once, and an upload or a card
// write racing with it keeps its file.

// CollectUnused deletes up to limit unused uploads (see above) and returns
// how many it deleted; fewer than limit means none is left. It needs no
// principal.
func (s *MediaService) CollectUnused(ctx context.Context, limit int) (int, error) {
	rows, err := s.Store.Media().UnusedMedia(ctx, s.Now().Add(-s.Cfg.MediaGrace), "", limit)
	if err != nil {
		return 0, kernel.Fail(err)
	}
	n := 0
	for _, m := range rows {
		gone, err := s.collectOne(ctx, m)
		if err != nil {
			return n, err
		}
		if gone {
			n++
		}
	}
	return n, nil
}

// PurgeStagedBlobs deletes staged blobs older than MediaGrace; limit is
// not needed (the blob store removes them in one pass). It needs no
// principal.
func (s *MediaService) PurgeStagedBlobs(ctx context.Context, _ int) (int, error) {
	if s.Blobs == nil {
		return 0, nil
	}
	n, err := s.Blobs.PurgeStaged(ctx, s.Now().Add(-s.Cfg.MediaGrace))
	return n, kernel.Fail(err)
}

// collectOne deletes one upload under its account's lock after checking
// again that nothing references it, and its blob when no other row of the
// account uses it.
func (s *MediaService) collectOne(ctx context.Context, m ports.MediaRow) (gone bool, err error) {
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		gone = false
		md := tx.Media()
		if err := md.LockMedia(ctx, m.UserID); err != nil {
			if contracts.IsKind(err, contracts.KindNotFound) {
				return nil // the account went meanwhile
			}
			return kernel.Fail(err)
		}
		used, err := md.MediaInUse(ctx, m.UserID, m.ID)
		if err != nil {
			return kernel.Fail(err)
		}
		if used {
			return nil
		}
		if err := md.DeleteMedia(ctx, m.UserID, m.ID); contracts.IsKind(err, contracts.KindNotFound) {
			return nil
		} else if err != nil {
			return kernel.Fail(err)
		}
		gone = true
		if s.Blobs == nil {
			return nil
		}
		if m.SHA256 != "" {
			inUse, err := md.BlobInUse(ctx, m.UserID, m.SHA256)
			if err != nil {
				return kernel.Fail(err)
			}
			if inUse {
				return nil
			}
		}
		// Deleting the file inside the transaction: an upload of equal
		// bytes waits for the lock and files them again afterwards.
		return kernel.Fail(s.Blobs.DeleteBlob(ctx, MediaBlobKey(m)))
	})
	return gone, err
}
