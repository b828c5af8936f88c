package exchange

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/domain/notes"
	"github.com/takhtabush/takhtabush/ports"
)

// Apply imports an opened package's content for the acting user: its
// media into the blob store (counted against the quota; types cards
// cannot show are skipped), its deck tree (Parent::Child names, each new
// deck with a preset of the package's settings), its notes and their
// cards (Anki HTML converted to the card content format, what the
// conversion removes counted in the report's Dropped), the cards'
// scheduling state (the FSRS memory state replayed from the review log
// when the package has none) and the review log. A note whose GUID the
// account already has is updated, with its cards, instead of added
// again; reviews it already has are not added twice.
//
// Decks and note types are planned first, from the package's head; the
// notes then stream a chunk at a time (converted, rendered, deduplicated,
// their reviews replayed) into a stage no read sees, in short
// transactions, so memory is bounded by the chunk, not the package. The
// media it stores belong to the stage too (counted against the quota, but
// listed, served or referable only once published); a file the account
// has already, of the same name and bytes, is reused instead. One more
// short transaction publishes the stage with the new decks, note types
// and the updates of notes the account had, so an import is visible whole
// or not at all and a failed or canceled import leaves no rows and no
// files (a stage an import left when its process died is dropped by the
// job's next attempt or the purge). The caller closes src.
func (s *ImportService) Apply(ctx context.Context, src ports.PackageSource, opts ImportOptions) (contracts.ImportReport, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.ImportReport{}, err
	}
	head := src.Head()
	im := &importer{s: s, uid: uid, head: head, opts: opts, dry: opts.DryRun, skips: map[string]*contracts.ImportSkip{}, dropped: cardtext.Dropped{},
		mediaIDs: map[string]string{}, guids: keySet{}, taken: keySet{}, converted: map[string]int{}, settings: map[string]contracts.DeckSettings{}}
	im.rep = contracts.ImportReport{Format: "apkg", DecksCreated: []string{}, Skipped: []contracts.ImportSkip{}}
	im.total = int64(len(head.Media) + 2*head.Notes + head.Reviews/100)
	rep, err := im.run(ctx, src)
	if err != nil {
		return contracts.ImportReport{}, err
	}
	return rep, nil
}

// importer is one import's working state. What spans the whole package
// is small: ids, digests and counts, never note content (the updates of
// the notes the account had wait in the stage too).
type importer struct {
	s    *ImportService
	uid  string
	head ports.AnkiPackageHead
	opts ImportOptions
	now  time.Time
	// dry plans without writing (ImportOptions.DryRun): every step runs
	// but the stage's and the media's writes, and the publishing is
	// counted instead of done; preview collects the first changes.
	dry      bool
	preview  kernel.Changes
	dryBytes int64 // the bytes of the media files a dry run would store

	rep     contracts.ImportReport
	skips   map[string]*contracts.ImportSkip
	order   []string
	dropped cardtext.Dropped
	done    int64
	total   int64

	mediaIDs map[string]string // package file name → media id

	decks     map[int64]string // package deck key → deck name here
	deckIDs   map[string]string
	newDecks  []contracts.Deck
	deckByKey map[int64]ports.AnkiDeck
	settings  map[string]contracts.DeckSettings // deck id → settings, for replays

	typeOf    map[int64]importedType // package note type key → how it is imported
	types     []ports.NoteTypeRow    // the package's own note types, to store
	converted map[string]int         // notes converted to a stock type, by why

	guids keySet               // GUIDs of the package's notes seen so far
	taken keySet               // deck id and hash of the cards staged so far
	have  map[reviewKey]bool   // reviews the account had of the cards updated (nil until needed)
	day   contracts.LearnerDay // the learner's day boundary, for review-log day numbers

	stage         ports.ImportStage // where the new rows wait until published
	touched       time.Time         // when the stage was last marked alive
	stagedNotes   int
	stagedCards   int
	stagedReviews int
}

// keySet is a set of digests: 16 bytes an entry, whatever they digest.
type keySet map[[16]byte]struct{}

// digestOf digests strings joined by NUL.
func digestOf(parts ...string) [16]byte {
	h := sha256.New()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	var k [16]byte
	copy(k[:], h.Sum(nil))
	return k
}

// noteWork is one note to write.
type noteWork struct {
	row      ports.NoteRow
	existing bool
	same     bool // an existing note whose fields and tags the package leaves as they are
	// prev is an existing note's fields (by name) and tags the package
	// changes, as they were: its note.update record's Prev.
	prev  map[string]any
	after map[string]any // the same fields' new values (a dry run's preview)
	cards []*cardWork
}

// cardWork is one card to write: a new one, or an existing one to update.
type cardWork struct {
	key       int64
	made      library.MadeCard
	deckID    string
	state     contracts.CardState
	suspended bool
	created   time.Time
	existing  *ports.CardRow
	id        string
	dropped   bool // left out as a duplicate of a card of its deck
}

func (im *importer) progress(step int64, msg string) {
	im.done += step
	if im.opts.Progress != nil {
		im.opts.Progress(min(im.done, im.total), im.total, msg)
	}
}

// skip counts things left out for one reason.
func (im *importer) skip(what, reason, example string, n int) {
	key := what + "\x00" + reason
	sk, ok := im.skips[key]
	if !ok {
		sk = &contracts.ImportSkip{What: what, Reason: reason}
		im.skips[key], im.order = sk, append(im.order, key)
	}
	sk.Count += n
	if sk.Example == "" && example != "" {
		sk.Example = truncateRunes(example, 80)
	}
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func (im *importer) run(ctx context.Context, src ports.PackageSource) (contracts.ImportReport, error) {
	im.now = im.s.Now()
	if !im.dry {
		if err := im.openStage(ctx); err != nil {
			return im.rep, err
		}
		// Whatever happens, the staged rows are dropped afterwards; when
		// the import failed, its staged media with them.
		defer im.s.dropStages(context.WithoutCancel(ctx), []string{im.stage.ID})
	}
	if err := im.importMedia(ctx); err != nil {
		return im.rep, err
	}
	if im.dry { // the files it would store, together, against the quota as the import finds it
		if err := im.s.media.CheckMediaQuota(ctx, im.uid, im.dryBytes); err != nil {
			return im.rep, err
		}
	}
	if err := im.planDecks(ctx); err != nil {
		return im.rep, err
	}
	var err error
	if im.typeOf, err = im.planTypes(ctx); err != nil {
		return im.rep, err
	}
	if err := im.write(ctx, src); err != nil {
		return im.rep, err
	}
	im.done = im.total
	// Everything is visible now; the deferred drop still moves the review
	// logs out of the stage, a batch a transaction, before the job ends.
	im.progress(0, "imported; putting the review history in place")
	for _, k := range im.order {
		im.rep.Skipped = append(im.rep.Skipped, *im.skips[k])
	}
	if len(im.dropped) > 0 {
		im.rep.Dropped = im.dropped
	}
	if im.dry {
		im.rep.Changes = im.preview.Preview()
	}
	return im.rep, nil
}

// importMediaTypes are the file extensions of the media types cards show.
var importMediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".mp3": "audio/mpeg", ".ogg": "audio/ogg", ".oga": "audio/ogg", ".opus": "audio/ogg", ".wav": "audio/wav",
	".m4a": "audio/mp4", ".mp4": "audio/mp4",
}

// openStage drops what an earlier attempt of the import's job staged and
// starts the import's own stage.
func (im *importer) openStage(ctx context.Context) error {
	if im.opts.JobID != "" { // an earlier attempt of the job may have left a stage
		left, err := im.s.Store.ImportStages().StagesToDrop(ctx, im.opts.JobID, time.Time{}, 16)
		if err != nil {
			return kernel.Fail(err)
		}
		im.s.dropStages(ctx, left)
	}
	im.stage = ports.ImportStage{ID: im.s.IDs.NewID(), UserID: im.uid, JobID: im.opts.JobID}
	if err := im.s.Store.ImportStages().CreateStage(ctx, im.stage, im.s.Now()); err != nil {
		return err
	}
	im.touched = im.s.Now()
	return nil
}

// importMedia stores the package's media the cards can show, in the
// import's stage, reusing the files the account has already.
// Each file is charged to the job's budget: an item, and the bytes read
// of it (to hash or to store).
func (im *importer) importMedia(ctx context.Context) error {
	for _, m := range im.head.Media {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := im.charge(1, 0); err != nil {
			return err
		}
		if err := im.touch(ctx); err != nil {
			return err
		}
		im.progress(1, "storing media")
		var read int64
		m.Open = countedOpen(m.Open, &read)
		if err := im.mediaFile(ctx, m); err != nil {
			return err
		}
		if err := im.charge(0, read); err != nil {
			return err
		}
	}
	return nil
}

// mediaFile stores (or reuses) one media file of the package.
func (im *importer) mediaFile(ctx context.Context, m ports.AnkiMedia) error {
	ct, ok := importMediaTypes[strings.ToLower(path.Ext(m.Name))]
	if !ok {
		im.skip("media", "a type cards cannot show (images: png, jpeg, gif, webp; audio: mp3, ogg, wav, m4a)", m.Name, 1)
		return nil
	}
	id, err := im.reuseMedia(ctx, m, ct)
	if err != nil {
		return err
	}
	if id != "" {
		im.mediaIDs[m.Name] = id
		im.rep.Media++
		im.rep.MediaReused++
		return nil
	}
	rc, err := m.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		im.skip("media", "the file could not be read from the package", m.Name, 1)
		return nil
	}
	if im.dry { // read and checked as storing it would, stored nowhere; the notes get the id it would have
		var n int64
		if n, err = im.s.media.CheckMedia(ct, m.Name, rc, contracts.MaxMediaBytes); err == nil {
			id, im.dryBytes = im.s.IDs.NewID(), im.dryBytes+n
		}
	} else {
		id, err = im.s.media.StoreMedia(ctx, im.uid, im.stage.ID, ct, m.Name, rc, contracts.MaxMediaBytes)
	}
	_ = rc.Close()
	switch {
	case err == nil:
		im.mediaIDs[m.Name] = id
		im.rep.Media++
	case contracts.IsKind(err, contracts.KindInvalid):
		im.skip("media", "not a valid file of its type, or larger than 10 MiB", m.Name, 1)
	default:
		return err // the quota is full, or storage failed: nothing is imported
	}
	return nil
}

// charge counts items and bytes against the job's budget, if any.
func (im *importer) charge(rows, bytes int64) error {
	if im.opts.Charge == nil {
		return nil
	}
	return im.opts.Charge(rows, bytes)
}

// countedOpen wraps a media file's opener so the bytes read from it are
// added to *n.
func countedOpen(open func(context.Context) (io.ReadCloser, error), n *int64) func(context.Context) (io.ReadCloser, error) {
	return func(ctx context.Context) (io.ReadCloser, error) {
		rc, err := open(ctx)
		if err != nil {
			return nil, err
		}
		return &countedReader{ReadCloser: rc, n: n}, nil
	}
}

// countedReader adds the bytes read through it to *n.
type countedReader struct {
	io.ReadCloser
	n *int64
}

func (r *countedReader) Read(p []byte) (int, error) {
	k, err := r.ReadCloser.Read(p)
	*r.n += int64(k)
	return k, err
}

// reuseMedia returns the id of the account's file with the name (or, for
// a package this service exported, the media id), type and bytes of m,
// "" when it has none: a re-import of a package reuses its files instead
// of storing them again (issue 13 §4, issue 31 §9). Only a file whose
// name or id the account has is read (to hash it), so a first import
// reads each file once. While the import's stage is unpublished the
// media collector leaves the account's files alone, so the file stays.
func (im *importer) reuseMedia(ctx context.Context, m ports.AnkiMedia, ct string) (string, error) {
	name, err := library.CleanFilename(m.Name)
	if err != nil {
		return "", nil // storing it reports why
	}
	have, err := im.s.Store.Media().MediaNamed(ctx, im.uid, name, ct, 16)
	if err != nil {
		return "", kernel.Fail(err)
	}
	// A package this service exported names each file by its media id
	// (see exportMedia): the account's file of that id is a candidate too,
	// reused when its bytes are the same (issue 31 §9).
	if stem := strings.TrimSuffix(m.Name, path.Ext(m.Name)); kernel.PlausibleID(stem) {
		row, err := im.s.Store.Media().MediaByID(ctx, stem)
		switch {
		case err == nil && row.UserID == im.uid && row.UploadedAt != nil && row.StageID == "" && row.ContentType == ct:
			have = append(have, row)
		case err != nil && !contracts.IsKind(err, contracts.KindNotFound):
			return "", kernel.Fail(err)
		}
	}
	if len(have) == 0 {
		return "", nil
	}
	rc, err := m.Open(ctx)
	if err != nil {
		return "", nil // storing it reports why
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(rc, contracts.MaxMediaBytes+1))
	if err != nil || n > contracts.MaxMediaBytes {
		return "", nil
	}
	sum := hex.EncodeToString(h.Sum(nil))
	for _, r := range have {
		if r.SHA256 == sum && r.Size == n {
			return r.ID, nil
		}
	}
	return "", nil
}

// resolveMedia maps a file name the notes use to a stored media id.
func (im *importer) resolveMedia(name string) (string, bool) {
	id, ok := im.mediaIDs[name]
	return id, ok
}

// planDecks names the decks the cards go to (and their parents in the
// package, so the tree stays whole), finds those the account has and
// prepares the others.
func (im *importer) planDecks(ctx context.Context) error {
	im.deckByKey = map[int64]ports.AnkiDeck{}
	for _, d := range im.head.Decks {
		im.deckByKey[d.Key] = d
	}
	used := map[string]bool{}
	for key, n := range im.head.DeckCards {
		if d, ok := im.deckByKey[key]; ok && n > 0 {
			used[d.Name] = true
		}
	}
	byName := map[string]ports.AnkiDeck{}
	for _, d := range im.head.Decks {
		byName[d.Name] = d
	}
	// Parents of used decks that the package has.
	for name := range used {
		parts := strings.Split(name, "::")
		for i := 1; i < len(parts); i++ {
			if _, ok := byName[strings.Join(parts[:i], "::")]; ok {
				used[strings.Join(parts[:i], "::")] = true
			}
		}
	}
	rename := func(n string) string { return n }
	if im.opts.DeckID != "" {
		target, err := library.LoadDeck(ctx, im.s.Store, im.uid, im.opts.DeckID)
		if err != nil {
			return err
		}
		roots := map[string]bool{}
		for name := range used {
			roots[strings.SplitN(name, "::", 2)[0]] = true
		}
		if len(roots) == 1 {
			var root string
			for r := range roots {
				root = r
			}
			rename = func(n string) string { return target.Name + strings.TrimPrefix(n, root) }
		} else {
			rename = func(n string) string { return target.Name + "::" + n }
		}
	}
	have := map[string]string{} // folded name → id
	for after := ""; ; {
		page, err := im.s.Store.Decks().ListDecks(ctx, im.uid, after, library.MaxDeckPage, im.now)
		if err != nil {
			return kernel.Fail(err)
		}
		for _, d := range page {
			have[strings.ToLower(d.Name)] = d.ID
		}
		if len(page) < library.MaxDeckPage {
			break
		}
		after = page[len(page)-1].ID
	}
	im.decks, im.deckIDs = map[int64]string{}, map[string]string{}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names) // parents before children
	for _, n := range names {
		d := byName[n]
		name, err := library.CleanDeckName(rename(n))
		if err != nil {
			im.skip("deck", "the deck name breaks a rule: "+err.Error(), n, 1)
			continue
		}
		im.decks[d.Key] = name
		if id, ok := have[strings.ToLower(name)]; ok {
			im.deckIDs[name] = id
			continue
		}
		set := d.Settings
		set.PresetID = ""
		if set.DesiredRetention == 0 {
			set = contracts.DefaultDeckSettings()
		}
		deck := contracts.Deck{ID: im.s.IDs.NewID(), Name: name, Description: d.Description, Settings: set, CreatedAt: im.now, UpdatedAt: im.now}
		im.newDecks = append(im.newDecks, deck)
		im.deckIDs[name] = deck.ID
		have[strings.ToLower(name)] = deck.ID
	}
	return nil
}

// deckOf returns the deck id and name a card of deck key goes to.
func (im *importer) deckOf(key int64) (id, name string, ok bool) {
	name, ok = im.decks[key]
	if !ok {
		return "", "", false
	}
	return im.deckIDs[name], name, true
}

// importedNoteID is the id a note imported with guid gets, so that a
// later import finds it again.
func importedNoteID(uid, guid string) string {
	sum := sha256.Sum256([]byte(uid + "\x00" + guid))
	return "n" + hex.EncodeToString(sum[:16])
}

// importNoteType returns the stock type a package's note type is (one of
// a stock name and the stock fields, or the stock fields and templates
// under another name) and false, or else true with the stock type its
// notes would be converted to by field position (see planTypes).
func importNoteType(at ports.AnkiNoteType) (notes.Type, bool) {
	if t, ok := notes.StockByName(at.Name); ok && slices.Equal(t.Fields, at.Fields) {
		return t, false
	}
	for _, t := range notes.Stock() {
		if slices.Equal(t.Fields, at.Fields) && sameTemplates(t.Templates, at.Templates) && (t.Kind == notes.KindCloze) == at.Cloze {
			return t, false
		}
	}
	name := notes.Basic
	switch {
	case at.Cloze:
		name = notes.Cloze
	case len(at.Templates) >= 2:
		name = notes.BasicReversed
	}
	t, _ := notes.StockByName(name)
	return t, true
}

// sameTemplates reports whether a package's templates are the stock ones
// (whitespace aside).
func sameTemplates(stock []notes.Template, got []ports.AnkiTemplate) bool {
	if len(stock) != len(got) {
		return false
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for i, t := range stock {
		if squash(t.Front) != squash(got[i].Front) || squash(t.Back) != squash(got[i].Back) {
			return false
		}
	}
	return true
}

// mapFields fits converted fields to a stock type by position: the first
// fields fill its fields, the rest join its last.
func mapFields(t notes.Type, fields []string) []string {
	out := make([]string, len(t.Fields))
	for i, f := range fields {
		j := min(i, len(out)-1)
		if strings.TrimSpace(f) == "" {
			continue
		}
		if out[j] != "" {
			out[j] += "\n\n"
		}
		out[j] += f
	}
	return out
}

// planNotes converts a chunk's notes and makes their cards, pairing them
// with the notes and cards the account already has (by GUID, then by
// card ord).
func (im *importer) planNotes(ctx context.Context, ch ports.AnkiChunk) ([]*noteWork, error) {
	cardsOf := make(map[int64][]ports.AnkiCard, len(ch.Notes))
	for _, c := range ch.Cards {
		cardsOf[c.NoteKey] = append(cardsOf[c.NoteKey], c)
	}
	existing, err := im.existingNotes(ctx, ch.Notes)
	if err != nil {
		return nil, err
	}
	var existingIDs []string
	for _, n := range existing {
		existingIDs = append(existingIDs, n.ID)
	}
	oldCards := map[string]map[int]ports.CardRow{}
	for i := 0; i < len(existingIDs); i += 500 {
		rows, err := im.s.Store.Notes().CardsOfNotes(ctx, im.uid, existingIDs[i:min(i+500, len(existingIDs))])
		if err != nil {
			return nil, kernel.Fail(err)
		}
		for _, c := range rows {
			if oldCards[c.NoteID] == nil {
				oldCards[c.NoteID] = map[int]ports.CardRow{}
			}
			oldCards[c.NoteID][c.Ord] = c
		}
	}
	var out []*noteWork
	for i, an := range ch.Notes {
		if i%200 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		im.progress(1, "converting notes")
		it, ok := im.typeOf[an.TypeKey]
		if !ok {
			im.skip("note", "its note type is missing from the package", firstField(an), 1)
			continue
		}
		guid := digestOf(an.GUID)
		if _, dup := im.guids[guid]; an.GUID == "" || dup {
			im.skip("note", "no GUID, or a GUID another note of the package has", firstField(an), 1)
			continue
		}
		im.guids[guid] = struct{}{}
		acards := cardsOf[an.Key]
		if len(acards) == 0 {
			im.skip("note", "the note has no cards", firstField(an), 1)
			continue
		}
		t, conv := it.t, it.converted != ""
		old, isOld := existing[an.GUID]
		moved := false
		if isOld && old.NoteType != it.ref {
			if it.legacy == "" || old.NoteType != it.legacy {
				im.skip("note", fmt.Sprintf("the note is here already with another note type; the package's is %q", t.Name), firstField(an), 1)
				continue
			}
			// Imported before own note types were kept, converted to
			// it.legacy: the note moves to the package's own type, and its
			// cards keep their ids, history and place by template ordinal.
			old.NoteType, moved = it.ref, true
		}
		fields := make([]string, len(an.Fields))
		for j, f := range an.Fields {
			fields[j] = strings.TrimSpace(cardtext.FromAnkiHTML(f, im.resolveMedia, im.dropped))
		}
		if conv {
			fields = mapFields(t, fields)
			im.converted[it.converted]++
		} else if len(fields) != len(t.Fields) {
			fields = mapFields(t, fields)
		}
		if f, ok := longField(fields); ok {
			im.skip("note", fmt.Sprintf("a field is longer than %d characters", contracts.MaxCardSideLen), f, 1)
			continue
		}
		tags := im.tags(an.Tags)
		_, firstDeck, ok := im.deckOf(acards[0].DeckKey)
		if !ok {
			im.skip("note", "its deck is missing from the package", firstField(an), 1)
			continue
		}
		made, err := library.MakeCards(t, fields, tags, firstDeck)
		if err != nil {
			im.skip("note", "its cards could not be made: "+err.Error(), firstField(an), 1)
			continue
		}
		w := &noteWork{existing: isOld}
		if isOld {
			w.same = !moved && slices.Equal(old.Fields, fields) && slices.Equal(old.Tags, tags)
			was := old
			old.Fields, old.Tags, old.UpdatedAt = fields, tags, im.now
			w.row = old
			if !w.same && !moved { // a note moved to another type is not put back by undo_changes
				w.prev, w.after = library.NoteChange(t.Fields, was, old)
			}
		} else {
			w.row = ports.NoteRow{ID: importedNoteID(im.uid, an.GUID), NoteType: it.ref, GUID: an.GUID, Fields: fields, Tags: tags,
				Version: 1, CreatedAt: im.now, UpdatedAt: im.now}
		}
		for _, ac := range acards {
			mc, ok := findMade(made, ac.Ord)
			if !ok {
				im.skip("card", "its template or cloze number makes no card from the note's fields here", firstField(an), 1)
				continue
			}
			deckID, _, ok := im.deckOf(ac.DeckKey)
			if !ok {
				im.skip("card", "its deck is missing from the package", firstField(an), 1)
				continue
			}
			cw := &cardWork{key: ac.Key, made: mc, deckID: deckID, state: ac.State, suspended: ac.Suspended,
				created: im.now.Add(-time.Duration(im.head.MaxPosition-ac.Position) * time.Millisecond)}
			if cw.state.Phase == "" || cw.state.Phase == contracts.PhaseNew {
				cw.state = library.NewCardState(im.now)
			}
			if oc, ok := oldCards[w.row.ID][mc.Ord]; ok {
				oc := oc
				cw.existing, cw.id = &oc, oc.ID
				if cw.state.Phase == contracts.PhaseNew && oc.State.Phase == contracts.PhaseNew {
					cw.state = oc.State // still new on both sides: it keeps its place among the new cards
				}
			} else {
				cw.id = im.s.IDs.NewID()
			}
			w.cards = append(w.cards, cw)
		}
		if len(w.cards) == 0 {
			continue
		}
		out = append(out, w)
	}
	return out, nil
}

func findMade(made []library.MadeCard, ord int) (library.MadeCard, bool) {
	for _, m := range made {
		if m.Ord == ord {
			return m, true
		}
	}
	return library.MadeCard{}, false
}

func firstField(n ports.AnkiNote) string {
	if len(n.Fields) == 0 {
		return n.GUID
	}
	return notes.StripHTML(n.Fields[0])
}

func longField(fields []string) (string, bool) {
	for _, f := range fields {
		if utf8.RuneCountInString(f) > contracts.MaxCardSideLen {
			return f, true
		}
	}
	return "", false
}

// tags keeps the tags as written, leaving out (and counting) those that
// break a tag rule.
func (im *importer) tags(in []string) []string {
	out := []string{}
	for _, t := range in {
		if n, err := cardtext.NormalizeTags([]string{t}); err != nil {
			im.skip("tag", "the tag breaks a tag rule (at most 64 characters, no spaces or control characters)", t, 1)
		} else if len(n) == 1 && !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, n[0]) }) {
			out = append(out, n[0])
		}
	}
	if len(out) > contracts.MaxTagsPerCard {
		im.skip("tag", fmt.Sprintf("a note has more than %d tags", contracts.MaxTagsPerCard), out[contracts.MaxTagsPerCard], len(out)-contracts.MaxTagsPerCard)
		out = out[:contracts.MaxTagsPerCard]
	}
	return out
}

// existingNotes returns the account's notes with the GUIDs of a chunk's
// notes, by GUID: notes imported before (their ids derive from their
// GUID) and notes made here and exported (their GUID is their id).
func (im *importer) existingNotes(ctx context.Context, ns []ports.AnkiNote) (map[string]ports.NoteRow, error) {
	want := map[string]bool{}
	var ids []string
	for _, n := range ns {
		if n.GUID == "" {
			continue
		}
		want[n.GUID] = true
		ids = append(ids, importedNoteID(im.uid, n.GUID))
		if kernel.PlausibleID(n.GUID) {
			ids = append(ids, n.GUID)
		}
	}
	out := map[string]ports.NoteRow{}
	for i := 0; i < len(ids); i += 500 {
		rows, err := im.s.Store.Notes().GetNotes(ctx, im.uid, ids[i:min(i+500, len(ids))])
		if err != nil {
			return nil, kernel.Fail(err)
		}
		for _, r := range rows {
			if want[r.GUID] {
				out[r.GUID] = r
			}
		}
	}
	return out, nil
}
