package exchange

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// ExportFormat names the export archive's JSON document, and ExportVersion
// its version; both are written into it.
const (
	ExportFormat   = "takhtabush-export"
	ExportVersion  = 1
	ExportJSONName = "takhtabush-export.json"
)

// exportPage is how many rows the export reads at a time.
const exportPage = 500

// AccountDataService exports and deletes the acting account's data. Both
// are the person's own acts: an API key or a connected app is forbidden.
type AccountDataService struct{ *kernel.Deps }

var _ ports.AccountDataService = (*AccountDataService)(nil)

// personal returns the acting principal when it is a person (a web
// session or the operator), never an agent's credential.
func personal(ctx context.Context, what string) (contracts.Principal, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return p, err
	}
	if p.CredentialKind == contracts.CredentialAPIKey || p.CredentialKind == contracts.CredentialOAuth {
		return p, contracts.Errorf(contracts.KindForbidden, "API keys and connected apps cannot %s; sign in to the web app", what)
	}
	return p, nil
}

// ExportReview is one review-log entry in the export.
type ExportReview struct {
	ID         string              `json:"id"`
	CardID     string              `json:"cardId"`
	DeckID     string              `json:"deckId"`
	SessionID  string              `json:"sessionId,omitempty"`
	Rating     contracts.Rating    `json:"rating"`
	PrevPhase  contracts.Phase     `json:"prevPhase"`
	State      contracts.CardState `json:"state"`
	ReviewedAt time.Time           `json:"reviewedAt"`
	DurationMs int                 `json:"durationMs,omitempty"`
}

// ExportNoteType is one of the account's own note types in the export
// (a note's noteType names it by id): its fields, templates in Anki's
// syntax and CSS, as stored.
type ExportNoteType struct {
	ID        string                  `json:"id"`
	Name      string                  `json:"name"`
	Kind      string                  `json:"kind"`
	Fields    []string                `json:"fields"`
	Templates []ports.NoteTemplateRow `json:"templates"`
	CSS       string                  `json:"css,omitempty"`
	CreatedAt time.Time               `json:"createdAt"`
	UpdatedAt time.Time               `json:"updatedAt"`
}

// ExportNote is one note in the export: its note type (a stock type's
// name, or the id of one of the export's noteTypes), its fields in the
// type's order (FieldNames names them) and tags. Its cards are in the
// export's cards, naming it by noteId and ord.
type ExportNote struct {
	ID         string    `json:"id"`
	NoteType   string    `json:"noteType"`
	GUID       string    `json:"guid"`
	FieldNames []string  `json:"fieldNames,omitempty"`
	Fields     []string  `json:"fields"`
	Tags       []string  `json:"tags"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

// ExportMedia is one media file in the export; File is its path in the
// archive, empty when it was never uploaded.
type ExportMedia struct {
	ID          string     `json:"id"`
	ContentType string     `json:"contentType"`
	Filename    string     `json:"filename"`
	Size        int64      `json:"size"`
	CreatedAt   time.Time  `json:"createdAt"`
	UploadedAt  *time.Time `json:"uploadedAt,omitempty"`
	File        string     `json:"file,omitempty"`
}

// Export writes the acting account's data to w as a zip archive: one JSON
// document (ExportJSONName: the account, exposure settings, API keys
// without secrets, deck presets with their FSRS weights and desired
// retention, decks, the account's own note types, notes, cards, the review log, the trash listing with
// when each item is deleted for good, the audit trail and the media list) and every uploaded media file under media/. It reads page by
// page, so memory stays bounded. Forbidden for an agent's credential.
func (s *AccountDataService) Export(ctx context.Context, w io.Writer) error {
	p, err := personal(ctx, "export the account")
	if err != nil {
		return err
	}
	uid := p.UserID
	user, err := s.Store.Users().UserByID(ctx, uid)
	if err != nil {
		return kernel.Fail(err)
	}
	// Recorded before the archive is written, so the export carries it.
	if err := kernel.RecordEvent(ctx, s.Store, s.IDs, s.Now(), p, contracts.AuditExportAccount, map[string]any{"format": ExportFormat, "version": ExportVersion}); err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	jw, err := zw.CreateHeader(&zip.FileHeader{Name: ExportJSONName, Method: zip.Deflate, Modified: s.Now()})
	if err != nil {
		return kernel.Fail(err)
	}
	doc := &jsonDoc{w: jw}
	doc.field("format", ExportFormat)
	doc.field("version", ExportVersion)
	doc.field("exportedAt", s.Now())
	doc.field("account", user)
	exp, err := s.Store.Exposure().GetExposure(ctx, uid)
	if err != nil {
		return kernel.Fail(err)
	}
	if exp.DisabledTools == nil {
		exp.DisabledTools = []string{}
	}
	doc.field("exposure", exp)
	settings, _, err := kernel.AccountSettings(ctx, s.Store, uid)
	if err != nil {
		return err
	}
	doc.field("settings", kernel.WithToday(settings, s.Now()))
	keys, err := s.Store.Keys().ListKeys(ctx, uid)
	if err != nil {
		return kernel.Fail(err)
	}
	views := make([]contracts.APIKeyView, 0, len(keys))
	for _, k := range keys {
		views = append(views, k.APIKeyView)
	}
	doc.field("apiKeys", views)

	presets, err := s.Store.Presets().ListPresets(ctx, uid)
	if err != nil {
		return kernel.Fail(err)
	}
	doc.field("presets", presets)

	now := s.Now()
	doc.array("decks", func(emit func(any)) error {
		return pages(func(after string) (string, int, error) {
			ds, err := s.Store.Decks().ListDecks(ctx, uid, after, exportPage, now)
			for _, d := range ds {
				emit(d)
			}
			return lastID(ds, func(d contracts.Deck) string { return d.ID }), len(ds), err
		})
	})
	own, err := library.AllNoteTypes(ctx, s.Store, uid)
	if err != nil {
		return err
	}
	ownFields := map[string][]string{}
	doc.array("noteTypes", func(emit func(any)) error {
		for _, t := range own {
			ownFields[t.ID] = t.Fields
			emit(ExportNoteType{ID: t.ID, Name: t.Name, Kind: t.Kind, Fields: t.Fields, Templates: t.Templates, CSS: t.CSS, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt})
		}
		return nil
	})
	doc.array("notes", func(emit func(any)) error {
		return pages(func(after string) (string, int, error) {
			ns, err := s.Store.Notes().ListNotes(ctx, uid, after, exportPage)
			for _, n := range ns {
				e := ExportNote{ID: n.ID, NoteType: n.NoteType, GUID: n.GUID, Fields: n.Fields, Tags: n.Tags, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
				if t, err := library.NoteType(n.NoteType); err == nil {
					e.FieldNames = t.Fields
				} else if f, ok := ownFields[n.NoteType]; ok {
					e.FieldNames = f
				}
				if e.Tags == nil {
					e.Tags = []string{}
				}
				emit(e)
			}
			return lastID(ns, func(n ports.NoteRow) string { return n.ID }), len(ns), err
		})
	})
	doc.array("cards", func(emit func(any)) error {
		return pages(func(after string) (string, int, error) {
			cs, err := s.Store.Cards().Search(ctx, uid, contracts.CardFilter{}, after, exportPage, now)
			for _, c := range cs {
				emit(c.Card)
			}
			return lastID(cs, func(c ports.CardRow) string { return c.ID }), len(cs), err
		})
	})
	doc.array("reviews", func(emit func(any)) error {
		return pages(func(after string) (string, int, error) {
			rs, err := s.Store.Reviews().ListReviews(ctx, uid, after, exportPage)
			for _, r := range rs {
				emit(ExportReview{ID: r.ID, CardID: r.CardID, DeckID: r.DeckID, SessionID: r.SessionID, Rating: r.Rating,
					PrevPhase: r.PrevPhase, State: r.State, ReviewedAt: r.ReviewedAt, DurationMs: r.DurationMs})
			}
			return lastID(rs, func(r ports.ReviewLog) string { return r.ID }), len(rs), err
		})
	})
	doc.array("trash", func(emit func(any)) error {
		var after *ports.TrashCursor
		for {
			ts, err := s.Store.Trash().ListTrash(ctx, uid, after, exportPage)
			if err != nil {
				return err
			}
			for _, t := range ts {
				emit(library.TrashItem(t))
			}
			if len(ts) < exportPage {
				return nil
			}
			last := ts[len(ts)-1]
			after = &ports.TrashCursor{DeletedAt: last.DeletedAt, ID: last.ID}
		}
	})
	doc.array("audit", func(emit func(any)) error {
		return pages(func(before string) (string, int, error) {
			es, err := s.Store.Audit().ListAudit(ctx, uid, contracts.AuditFilter{}, before, exportPage)
			for _, e := range es {
				emit(e)
			}
			return lastID(es, func(e contracts.AuditEvent) string { return e.ID }), len(es), err
		})
	})
	doc.array("changes", func(emit func(any)) error {
		return pages(func(before string) (string, int, error) {
			cs, err := s.Store.Changes().ListChanges(ctx, uid, contracts.ChangeFilter{}, before, exportPage)
			for _, c := range cs {
				emit(c)
			}
			return lastID(cs, func(c contracts.ChangeRecord) string { return c.ID }), len(cs), err
		})
	})
	var uploaded []ExportMedia
	inZip := map[string]bool{} // equal files share one blob: archive it once
	doc.array("media", func(emit func(any)) error {
		return pages(func(after string) (string, int, error) {
			ms, err := s.Store.Media().ListMedia(ctx, uid, after, exportPage)
			for _, m := range ms {
				e := ExportMedia{ID: m.ID, ContentType: m.ContentType, Filename: m.Filename, Size: m.Size, CreatedAt: m.CreatedAt, UploadedAt: m.UploadedAt}
				if m.UploadedAt != nil {
					e.File = library.MediaBlobKey(m)
					if !inZip[e.File] {
						inZip[e.File] = true
						uploaded = append(uploaded, e)
					}
				}
				emit(e)
			}
			return lastID(ms, func(m ports.MediaRow) string { return m.ID }), len(ms), err
		})
	})
	if err := doc.close(); err != nil {
		return err
	}
	for _, m := range uploaded {
		if err := s.copyBlob(ctx, zw, m); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return kernel.Fail(err)
	}
	return nil
}

// copyBlob adds one media file to the archive.
func (s *AccountDataService) copyBlob(ctx context.Context, zw *zip.Writer, m ExportMedia) error {
	if s.Blobs == nil {
		return contracts.Errorf(contracts.KindUnavailable, "media files cannot be read on this server")
	}
	rc, err := s.Blobs.OpenBlob(ctx, m.File)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return nil // an upload whose file is gone: listed, not included
	}
	if err != nil {
		return kernel.Fail(err)
	}
	defer rc.Close()
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: m.File, Method: zip.Store, Modified: m.CreatedAt})
	if err != nil {
		return kernel.Fail(err)
	}
	if _, err := io.Copy(fw, rc); err != nil {
		return kernel.Fail(err)
	}
	return nil
}

// DeleteAccount deletes the acting account for good: its API keys and web
// sessions first, then every other row (decks, cards, reviews, sessions,
// exposure, audit, media records), then its media files. Only an
// anonymous record that an account was deleted stays. confirmation must
// be the account's email, typed out. Forbidden for an agent's credential;
// invalid for a wrong confirmation (nothing is deleted then).
func (s *AccountDataService) DeleteAccount(ctx context.Context, confirmation string) error {
	p, err := personal(ctx, "delete the account")
	if err != nil {
		return err
	}
	user, err := s.Store.Users().UserByID(ctx, p.UserID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return kernel.NotFound("user", p.UserID)
	}
	if err != nil {
		return kernel.Fail(err)
	}
	if !strings.EqualFold(strings.TrimSpace(confirmation), user.Email) {
		return contracts.Errorf(contracts.KindInvalid, "type your email address (%s) exactly to confirm the deletion", user.Email)
	}
	var files []string
	seen := map[string]bool{}
	for _, list := range []func(after string) ([]ports.MediaRow, error){
		func(after string) ([]ports.MediaRow, error) {
			return s.Store.Media().ListMedia(ctx, user.ID, after, exportPage)
		},
		// and the files of an import that has not published yet
		func(after string) ([]ports.MediaRow, error) {
			return s.Store.Media().StagedMedia(ctx, user.ID, "", after, exportPage)
		},
	} {
		err = pages(func(after string) (string, int, error) {
			ms, err := list(after)
			for _, m := range ms {
				if k := library.MediaBlobKey(m); !seen[k] {
					seen[k] = true
					files = append(files, k)
				}
			}
			return lastID(ms, func(m ports.MediaRow) string { return m.ID }), len(ms), err
		})
		if err != nil {
			return kernel.Fail(err)
		}
	}
	if err := s.Store.Users().DeleteUser(ctx, user.ID, s.IDs.NewID(), s.Now()); err != nil {
		return kernel.Fail(err)
	}
	if s.Blobs == nil {
		return nil
	}
	var errs []error
	for _, f := range files {
		if err := s.Blobs.DeleteBlob(ctx, f); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return contracts.Internal(errors.Join(errs...))
	}
	return nil
}

// pages calls next with the last id of the previous page ("" first) until
// a page comes back short.
func pages(next func(after string) (last string, n int, err error)) error {
	after := ""
	for {
		last, n, err := next(after)
		if err != nil {
			return err
		}
		if n < exportPage {
			return nil
		}
		after = last
	}
}

// lastID returns the id of the last element, or "".
func lastID[T any](v []T, id func(T) string) string {
	if len(v) == 0 {
		return ""
	}
	return id(v[len(v)-1])
}

// jsonDoc writes one JSON object field by field, arrays element by
// element; the first error sticks.
type jsonDoc struct {
	w   io.Writer
	n   int
	err error
}

func (d *jsonDoc) raw(s string) {
	if d.err == nil {
		_, d.err = io.WriteString(d.w, s)
	}
}

func (d *jsonDoc) value(v any) {
	if d.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		d.err = err
		return
	}
	_, d.err = d.w.Write(b)
}

func (d *jsonDoc) key(k string) {
	if d.n == 0 {
		d.raw("{\n")
	} else {
		d.raw(",\n")
	}
	d.n++
	d.value(k)
	d.raw(": ")
}

// field writes "k": v.
func (d *jsonDoc) field(k string, v any) {
	d.key(k)
	d.value(v)
}

// array writes "k": [ … ] with the elements fill emits.
func (d *jsonDoc) array(k string, fill func(emit func(any)) error) {
	d.key(k)
	d.raw("[")
	first := true
	err := fill(func(v any) {
		if !first {
			d.raw(",")
		}
		first = false
		d.raw("\n  ")
		d.value(v)
	})
	if err != nil && d.err == nil {
		d.err = err
	}
	d.raw("\n]")
}

// close ends the object and returns the first error.
func (d *jsonDoc) close() error {
	d.raw("\n}\n")
	if d.err != nil {
		var ce *contracts.Error
		if errors.As(d.err, &ce) {
			return d.err
		}
		return kernel.Fail(d.err)
	}
	return nil
}
