package exchange

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/content"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/domain/notes"
	"github.com/takhtabush/takhtabush/ports"
)

// ExportLinkTTL is how long an export's download link works.
const ExportLinkTTL = 10 * time.Minute

// ExportPathPrefix is the path under which export downloads are served.
const ExportPathPrefix = "/export/"

// ExportService exports decks as Anki packages (.apkg) behind short-lived
// signed download links.
type ExportService struct {
	*kernel.Deps
	writer ports.PackageWriter
	render *content.Renderer
}

// NewExportService builds the service with the configured package writer.
func NewExportService(d *kernel.Deps) *ExportService {
	return &ExportService{Deps: d, writer: d.Cfg.PackageWriter, render: content.New()}
}

// ExportTicket is what a verified download link grants: one user's deck,
// with or without scheduling and media, until it expires or the credential
// that asked for it is revoked.
type ExportTicket struct {
	UserID     string    `json:"u"`
	DeckID     string    `json:"d"`
	Scheduling bool      `json:"s"`
	Media      bool      `json:"m"`
	Expires    time.Time `json:"e"`
	// CredentialKind and CredentialID name the credential that made the
	// link (kernel.CredentialLive checks it on every download).
	CredentialKind contracts.CredentialKind `json:"k,omitempty"`
	CredentialID   string                   `json:"c,omitempty"`
}

// ExportDeck checks the deck is the acting user's and returns a link that
// downloads its package (the deck and its subdecks) for ExportLinkTTL,
// by plain GET, as often as it is fetched. Not found for an unknown deck.
func (s *ExportService) ExportDeck(ctx context.Context, args contracts.ExportDeckArgs) (contracts.ExportLink, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return contracts.ExportLink{}, err
	}
	uid := p.UserID
	if s.writer == nil || len(s.Cfg.URLKey) == 0 {
		return contracts.ExportLink{}, contracts.Errorf(contracts.KindUnavailable, "exports are not available on this server")
	}
	if !kernel.PlausibleID(args.DeckID) {
		return contracts.ExportLink{}, kernel.NotFound("deck", args.DeckID)
	}
	if _, err := s.Store.Decks().DeckWithoutCounts(ctx, uid, args.DeckID); err != nil {
		return contracts.ExportLink{}, err
	}
	t := ExportTicket{UserID: uid, DeckID: args.DeckID, Scheduling: args.IncludeScheduling == nil || *args.IncludeScheduling,
		Media: args.IncludeMedia == nil || *args.IncludeMedia, Expires: s.Now().Add(ExportLinkTTL),
		CredentialKind: p.CredentialKind, CredentialID: p.CredentialID}
	body, err := json.Marshal(t)
	if err != nil {
		return contracts.ExportLink{}, kernel.Fail(err)
	}
	payload := base64.RawURLEncoding.EncodeToString(body)
	token := payload + "." + base64.RawURLEncoding.EncodeToString(s.sign(payload))
	return contracts.ExportLink{DownloadURL: s.Cfg.BaseURL + ExportPathPrefix + token, ExpiresAt: t.Expires}, nil
}

func (s *ExportService) sign(payload string) []byte {
	mac := hmac.New(sha256.New, s.Cfg.URLKey)
	mac.Write([]byte("takhtabush export\x00" + payload))
	return mac.Sum(nil)
}

// VerifyExport checks a download link's token: the signature, then the
// expiry. Not found for a token that is not ours or has expired (the
// same answer for both, so a link cannot be probed), never a reason more.
func (s *ExportService) VerifyExport(token string) (ExportTicket, error) {
	gone := linkGone()
	payload, sig, ok := strings.Cut(token, ".")
	if !ok || len(token) > 2048 || len(s.Cfg.URLKey) == 0 {
		return ExportTicket{}, gone
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.sign(payload)) {
		return ExportTicket{}, gone
	}
	body, err := base64.RawURLEncoding.DecodeString(payload)
	var t ExportTicket
	if err != nil || json.Unmarshal(body, &t) != nil || !s.Now().Before(t.Expires) {
		return ExportTicket{}, gone
	}
	return t, nil
}

// linkGone is the one answer for a download link that does not work.
func linkGone() error {
	return contracts.Errorf(contracts.KindNotFound, "this download link is not valid or has expired; export the deck again")
}

// Download serves a download link's token: it verifies it and that the
// credential that made it still stands, then calls open with the
// package's file name and writes the package to the writer open returns
// (open may set response headers first). Not found for a token that is
// not valid, has expired or whose key or OAuth grant was revoked (one
// answer for all); open is not called then.
func (s *ExportService) Download(ctx context.Context, token string, open func(filename string) io.Writer) error {
	t, err := s.VerifyExport(token)
	if err != nil {
		return err
	}
	live, err := s.CredentialLive(ctx, t.UserID, t.CredentialKind, t.CredentialID)
	if err != nil {
		return err
	}
	if !live {
		return linkGone()
	}
	name, err := s.ExportFilename(ctx, t)
	if err != nil {
		return err
	}
	pkg, err := s.collect(ctx, t)
	if err != nil {
		return err
	}
	return s.writer.WritePackage(ctx, open(name), pkg)
}

// ExportFilename is the file name a download of the ticket's deck gets.
func (s *ExportService) ExportFilename(ctx context.Context, t ExportTicket) (string, error) {
	d, err := s.Store.Decks().DeckWithoutCounts(ctx, t.UserID, t.DeckID)
	if err != nil {
		return "", err
	}
	name := unsafeFileChars.ReplaceAllString(d.Name, "_")
	if name == "" {
		name = "deck"
	}
	return name + ".apkg", nil
}

var unsafeFileChars = regexp.MustCompile(`[^\p{L}\p{N} ._()-]+`)

// WriteExport writes the ticket's package to w: the deck and its subdecks
// (Parent::Child names), their notes with their note types, the cards with
// their scheduling state and review log when the ticket includes
// scheduling (else as new cards), and the media the cards name when it
// includes media.
func (s *ExportService) WriteExport(ctx context.Context, t ExportTicket, w io.Writer) error {
	pkg, err := s.collect(ctx, t)
	if err != nil {
		return err
	}
	return s.writer.WritePackage(ctx, w, pkg)
}

// keys hands out package keys in creation order.
type keys struct{ next int64 }

func (k *keys) take() int64 { k.next++; return k.next }

func (s *ExportService) collect(ctx context.Context, t ExportTicket) (ports.AnkiPackage, error) {
	uid := t.UserID
	root, err := s.Store.Decks().DeckWithoutCounts(ctx, uid, t.DeckID)
	if err != nil {
		return ports.AnkiPackage{}, err
	}
	pkg := ports.AnkiPackage{Created: root.CreatedAt}
	k := &keys{next: root.CreatedAt.UnixMilli()}
	deckKeys := map[string]int64{}
	decks := []contracts.Deck{root}
	for after := ""; ; {
		page, err := s.Store.Decks().ListDecks(ctx, uid, after, 200, s.Now())
		if err != nil {
			return ports.AnkiPackage{}, err
		}
		for _, d := range page {
			if strings.HasPrefix(d.Name, root.Name+"::") {
				decks = append(decks, d)
			}
		}
		if len(page) < 200 {
			break
		}
		after = page[len(page)-1].ID
	}
	for _, d := range decks {
		key := k.take()
		deckKeys[d.ID] = key
		pkg.Decks = append(pkg.Decks, ports.AnkiDeck{Key: key, Name: d.Name, Description: d.Description, Settings: d.Settings})
	}

	var cards []ports.CardRow
	for _, d := range decks {
		for after := ""; ; {
			page, err := s.Store.Cards().Search(ctx, uid, contracts.CardFilter{DeckID: d.ID}, after, 500, s.Now())
			if err != nil {
				return ports.AnkiPackage{}, err
			}
			cards = append(cards, page...)
			if len(page) < 500 {
				break
			}
			after = page[len(page)-1].ID
		}
	}

	media := &exportMedia{ctx: ctx, s: s, uid: uid, names: map[string]string{}, include: t.Media}
	typeKeys := map[string]int64{}
	usedTypeKeys := map[int64]bool{}
	typeKey := func(name string) (int64, error) {
		if key, ok := typeKeys[name]; ok {
			return key, nil
		}
		nt, ok := notes.StockByName(name)
		key := int64(0)
		if library.IsStoredType(name) {
			// A type of the account's own keeps its fields, templates and
			// CSS, and the Anki model id it came with, so Anki matches it.
			rows, err := s.Store.NoteTypes().GetNoteTypes(ctx, uid, []string{name})
			if err != nil {
				return 0, err
			}
			if len(rows) == 1 {
				nt, ok = library.TypeOfRow(rows[0]), true
				key = rows[0].AnkiID
			}
		}
		if !ok {
			nt, _ = notes.StockByName(notes.Basic)
		}
		if key <= 0 || usedTypeKeys[key] {
			key = k.take()
			for usedTypeKeys[key] {
				key = k.take()
			}
		}
		typeKeys[name], usedTypeKeys[key] = key, true
		at := ports.AnkiNoteType{Key: key, Name: nt.Name, Cloze: nt.Kind == notes.KindCloze, Fields: nt.Fields, CSS: nt.CSS}
		for _, tp := range nt.Templates {
			at.Templates = append(at.Templates, ports.AnkiTemplate{Name: tp.Name, Front: tp.Front, Back: tp.Back})
		}
		pkg.NoteTypes = append(pkg.NoteTypes, at)
		return key, nil
	}

	// Notes: a card's note, or for a card without one a Basic note of its
	// front and back.
	var noteIDs []string
	for _, c := range cards {
		if c.NoteID != "" && !slices.Contains(noteIDs, c.NoteID) {
			noteIDs = append(noteIDs, c.NoteID)
		}
	}
	noteKeys := map[string]int64{}
	for i := 0; i < len(noteIDs); i += 500 {
		rows, err := s.Store.Notes().GetNotes(ctx, uid, noteIDs[i:min(i+500, len(noteIDs))])
		if err != nil {
			return ports.AnkiPackage{}, err
		}
		for _, n := range rows {
			key := k.take()
			noteKeys[n.ID] = key
			fields := make([]string, len(n.Fields))
			for j, f := range n.Fields {
				fields[j] = s.ankiHTML(f, media)
			}
			tk, err := typeKey(n.NoteType)
			if err != nil {
				return ports.AnkiPackage{}, err
			}
			pkg.Notes = append(pkg.Notes, ports.AnkiNote{Key: key, GUID: n.GUID, TypeKey: tk, Fields: fields, Tags: n.Tags, Modified: n.UpdatedAt})
		}
	}
	cardKeys := map[string]int64{}
	for i, c := range cards {
		nk, ok := noteKeys[c.NoteID]
		ord := c.Ord
		if !ok {
			nk, ord = k.take(), 0
			tk, err := typeKey(notes.Basic)
			if err != nil {
				return ports.AnkiPackage{}, err
			}
			pkg.Notes = append(pkg.Notes, ports.AnkiNote{Key: nk, GUID: c.ID, TypeKey: tk,
				Fields: []string{s.ankiHTML(c.Front, media), s.ankiHTML(c.Back, media)}, Tags: c.Tags, Modified: c.UpdatedAt})
		}
		key := k.take()
		cardKeys[c.ID] = key
		state := c.State
		if !t.Scheduling {
			state = contracts.CardState{Phase: contracts.PhaseNew}
		}
		pkg.Cards = append(pkg.Cards, ports.AnkiCard{Key: key, NoteKey: nk, DeckKey: deckKeys[c.DeckID], Ord: ord, State: state,
			Suspended: c.Suspended, Position: i + 1, Modified: c.UpdatedAt})
	}

	if t.Scheduling {
		used := map[int64]bool{}
		for after := ""; ; {
			page, err := s.Store.Reviews().ListReviews(ctx, uid, after, 1000)
			if err != nil {
				return ports.AnkiPackage{}, err
			}
			for _, r := range page {
				ck, ok := cardKeys[r.CardID]
				if !ok {
					continue
				}
				key := r.ReviewedAt.UnixMilli()
				for used[key] {
					key++
				}
				used[key] = true
				pkg.Reviews = append(pkg.Reviews, ports.AnkiReview{Key: key, CardKey: ck, Rating: r.Rating, Kind: r.Kind,
					PrevPhase: r.PrevPhase, State: r.State, PrevInterval: r.PrevInterval, DurationMs: r.DurationMs})
			}
			if len(page) < 1000 {
				break
			}
			after = page[len(page)-1].ID
		}
	}
	pkg.Media = media.files
	return pkg, nil
}

// exportMedia names the media files cards reference, once each.
type exportMedia struct {
	ctx     context.Context // the export's request
	s       *ExportService
	uid     string
	include bool
	names   map[string]string // media id → name in the package ("" when unavailable)
	files   []ports.AnkiMedia
}

// name returns the file name of a media id inside the package, or ""
// when the id is not the user's uploaded file or media are left out.
func (m *exportMedia) name(id string) string {
	if n, ok := m.names[id]; ok {
		return n
	}
	m.names[id] = ""
	if !m.include {
		return ""
	}
	row, err := m.s.Store.Media().MediaByID(m.ctx, id)
	if err != nil || row.UserID != m.uid || row.UploadedAt == nil {
		return ""
	}
	ext := path.Ext(row.Filename)
	if ext == "" {
		ext = mediaExtensions[library.MediaType(row.ContentType)]
	}
	n := id + strings.ToLower(unsafeFileChars.ReplaceAllString(ext, ""))
	m.names[id] = n
	key := library.MediaBlobKey(row)
	m.files = append(m.files, ports.AnkiMedia{Name: n, Open: func(ctx context.Context) (io.ReadCloser, error) {
		return m.s.Blobs.OpenBlob(ctx, key)
	}})
	return n
}

// mediaExtensions name a file extension per media type, for files
// uploaded without a name.
var mediaExtensions = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/svg+xml": ".svg",
	"audio/mpeg": ".mp3", "audio/ogg": ".ogg", "audio/wav": ".wav", "audio/mp4": ".m4a", "audio/webm": ".webm",
}

var (
	audioTag   = regexp.MustCompile(`<audio[^>]*src="([^"]*)"[^>]*>\s*</audio>`)
	onePara    = regexp.MustCompile(`^<p>((?s:.*))</p>$`)
	missingRef = regexp.MustCompile(`\s*(src|href)="" data-missing-media="[^"]*"`)
)

// ankiHTML turns card content (Markdown with sanitised HTML) into the HTML
// Anki shows: media references become the package's file names (images as
// <img src>, audio as [sound:…]), a single paragraph loses its <p>.
func (s *ExportService) ankiHTML(src string, media *exportMedia) string {
	out := s.render.Render(src, media.name).HTML
	out = audioTag.ReplaceAllString(out, "[sound:$1]")
	out = missingRef.ReplaceAllString(out, "")
	if m := onePara.FindStringSubmatch(out); m != nil && !strings.Contains(m[1], "<p>") {
		out = m[1]
	}
	return out
}
