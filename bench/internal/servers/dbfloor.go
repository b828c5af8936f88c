package servers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// DBFloor is the database floor (issue 12 §1): a hand-written net/http +
// encoding/json + database/sql server on the service's own schema, opened
// with the service's own settings (sqlite.Open / postgres.Open: the same
// pragmas, pool and migrations), seeded with the same accounts, that runs
// for each scenario the fewest statements a correct implementation needs.
// Each statement says why it is needed (dbfloor_sql.go). It checks what
// every call must check (the key, its expiry and revocation, the scope,
// the account's exposure settings) and writes what every mutation must
// write (the audit row, in the mutation's transaction), and nothing else:
// no framework, no schema validation, no logs or metrics. It is the
// anchor of the full stack's goals.
type DBFloor struct {
	// Postgres runs it on Postgres (TAKHTABUSH_TEST_POSTGRES_URL) instead of SQLite.
	Postgres bool
}

// Name implements Server.
func (f DBFloor) Name() string {
	if f.Postgres {
		return "dbfloor-pg"
	}
	return "dbfloor"
}

// Description implements Server.
func (f DBFloor) Description() string {
	return "database floor: net/http + encoding/json + database/sql on the service's schema and " + dbName(f.Postgres) +
		" settings, the fewest statements per call (key+exposure in one read; a mutation, its audit row, one transaction)"
}

// Unavailable implements Optional.
func (f DBFloor) Unavailable() string { return postgresUnavailable(f.Postgres) }

// Scenarios implements Server.
func (DBFloor) Scenarios() []scenario.Scenario { return scenario.DBFloor() }

// Start implements Server: it seeds a fresh database through the service
// exactly as the full stack does, closes the service, and serves the same
// data with hand-written SQL.
func (f DBFloor) Start(ctx context.Context, opts Options) (*Instance, error) {
	db, err := newBenchDB(ctx, f.Postgres)
	if err != nil {
		return nil, err
	}
	app, err := db.app(ctx, nil)
	if err != nil {
		return nil, errors.Join(err, db.close())
	}
	sd, err := seed(ctx, app, opts.Calls[scenario.SubmitReview], opts.Calls[scenario.AddCards])
	if err == nil {
		err = app.Close()
	} else {
		err = errors.Join(err, app.Close())
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("seeding: %w", err), db.close())
	}
	setup, err := sd.setup()
	if err != nil {
		return nil, errors.Join(err, db.close())
	}
	var counter sqlcount.Counter
	sqldb, closeDB, err := db.open(ctx, &counter)
	if err != nil {
		return nil, errors.Join(err, db.close())
	}
	srv := &dbFloor{db: sqldb, pg: f.Postgres, sched: fsrs.New(), ids: domain.RandomIDs{}, stmts: map[string]*sql.Stmt{}}
	if err := srv.prepare(ctx); err != nil {
		return nil, errors.Join(err, closeDB(), db.close())
	}
	if !f.Postgres {
		srv.writeMu = &sync.Mutex{}
	}
	return &Instance{
		Handler:    srv,
		Header:     bearer(sd.writer.key),
		Setup:      setup,
		Statements: func() int64 { return counter.Read().Statements },
		Close:      func() error { return errors.Join(closeDB(), db.close()) },
	}, nil
}

// dbFloor serves the scenarios with hand-written SQL.
type dbFloor struct {
	db    *sql.DB
	pg    bool
	sched *fsrs.Scheduler
	ids   domain.RandomIDs
	// writeMu serialises write transactions on SQLite, as the service
	// does (one writer; queueing in Go beats busy-waiting in the driver).
	writeMu *sync.Mutex
	// stmts holds every statement prepared, as the service's statement
	// cache does (parsed once per connection); the 10-card insert is
	// prepared on first use.
	stmts   map[string]*sql.Stmt
	stmtsMu sync.RWMutex
	// days remembers accounts' learner's days (user id → floorDay).
	days sync.Map
	// settings remembers decks' answered settings (settingsKey →
	// contracts.DeckSettings), shared read-only by answers.
	settings sync.Map
}

// prepare prepares the fixed statements.
func (f *dbFloor) prepare(ctx context.Context) error {
	for _, q := range []string{sqlKeyWithExposure, sqlListDecks, sqlReviewTarget, sqlMarkItem, sqlUpdateCard,
		sqlInsertReview, sqlRequeue, sqlProgress, sqlAuditSavepoint, sqlInsertAudit, sqlExistingHashes,
		sqlChargeWrites, sqlChargeCards, sqlLockDeck, sqlStudiedToday, sqlAccountDay} {
		if _, err := f.stmt(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// stmt returns the prepared statement of q, preparing it on first use.
func (f *dbFloor) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	f.stmtsMu.RLock()
	st, ok := f.stmts[q]
	f.stmtsMu.RUnlock()
	if ok {
		return st, nil
	}
	st, err := f.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	f.stmtsMu.Lock()
	defer f.stmtsMu.Unlock()
	if old, ok := f.stmts[q]; ok {
		_ = st.Close()
		return old, nil
	}
	f.stmts[q] = st
	return st, nil
}

// principal is what the key lookup returns.
type principal struct {
	userID, keyID string
	scopes        []string
	readOnly      bool
	disabled      []string
}

func (p principal) has(scope string) bool {
	for _, s := range p.scopes {
		if s == scope {
			return true
		}
	}
	return false
}

func (p principal) allows(tool string) bool {
	for _, t := range p.disabled {
		if t == tool {
			return false
		}
	}
	return true
}

func (f *dbFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ctx := r.Context()
	p, err := f.authenticate(ctx, r.Header.Get("Authorization"))
	if err != nil {
		http.Error(w, `{"error":"invalid API key"}`, http.StatusUnauthorized)
		return
	}
	var req floorRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&req); err != nil {
		writeFloor(w, http.StatusBadRequest, floorResponse{Error: &floorError{-32700, "parse error"}})
		return
	}
	if req.Method != "tools/call" {
		writeFloor(w, http.StatusOK, floorResponse{ID: req.ID, Error: &floorError{-32601, "method not found"}})
		return
	}
	var call floorCallParams
	if err := json.Unmarshal(req.Params, &call); err != nil {
		writeFloor(w, http.StatusOK, floorResponse{ID: req.ID, Error: &floorError{-32602, "invalid params"}})
		return
	}
	var out any
	switch call.Name {
	case contracts.ToolListDecks:
		out, err = f.listDecks(ctx, p)
	case contracts.ToolSubmitReview:
		// A write's answer leads with its operation id, as the service's.
		op := f.ids.NewID()
		var r contracts.ReviewResult
		r, err = f.submitReview(ctx, p, op, req.ID, call.Arguments)
		out = reviewAnswer{op, r}
	case contracts.ToolAddCards:
		op := f.ids.NewID()
		var r contracts.BulkResult
		r, err = f.addCards(ctx, p, op, req.ID, call.Arguments)
		out = bulkAnswer{op, r}
	default:
		writeFloor(w, http.StatusOK, floorResponse{ID: req.ID, Error: &floorError{-32602, "unknown tool " + call.Name}})
		return
	}
	if err != nil {
		writeFloor(w, http.StatusOK, floorResponse{ID: req.ID, Result: floorToolResult{Content: []floorContent{{"text", err.Error()}}, IsError: true}})
		return
	}
	writeToolResult(w, req.ID, out)
}

// reviewAnswer and bulkAnswer are a write's answer: its operation id
// (shared by its audit row and its records), then the result.
type (
	reviewAnswer struct {
		OperationID string `json:"operationId"`
		contracts.ReviewResult
	}
	bulkAnswer struct {
		OperationID string `json:"operationId"`
		contracts.BulkResult
	}
)

// resultBufs recycles the buffers answers are written in.
var resultBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeToolResult writes a tool's result as a hand-written server would:
// the result encoded once, the JSON-RPC envelope appended around it, the
// text block escaped as the service escapes it and the structured copy
// as encoded (not re-validated), so the answer is byte for byte what the
// service sends (TestDBFloorAnswersAsService).
func writeToolResult(w http.ResponseWriter, id json.RawMessage, out any) {
	buf := resultBufs.Get().(*bytes.Buffer)
	defer resultBufs.Put(buf)
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(out); err != nil { // as json.Marshal, which the service uses, encodes (with a newline)
		writeFloor(w, http.StatusOK, floorResponse{ID: id, Error: &floorError{-32603, "internal error"}})
		return
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	b := make([]byte, 0, 2*len(raw)+128)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":{"content":[{"type":"text","text":`...)
	b = appendJSONString(b, raw)
	b = append(b, `}],"structuredContent":`...)
	b = append(b, raw...)
	b = append(b, `}}`...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// appendJSONString appends s as a JSON string literal, escaped as the
// service's engine escapes text (quotes, backslashes, control characters,
// invalid UTF-8, U+2028 and U+2029; not HTML).
func appendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// errDenied refuses a call; its text is what the model reads.
var errDenied = errors.New("this key may not call this tool on this account")

// authenticate checks a Bearer API key "tbk_<id>_<secret>": one indexed
// read returns the key with its owner's exposure settings.
func (f *dbFloor) authenticate(ctx context.Context, header string) (principal, error) {
	key, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return principal{}, errDenied
	}
	rest, ok := strings.CutPrefix(key, contracts.APIKeyPrefix)
	if !ok {
		return principal{}, errDenied
	}
	id, secret, ok := strings.Cut(rest, "_")
	if !ok || secret == "" {
		return principal{}, errDenied
	}
	var (
		p                principal
		hash             []byte
		scopes, disabled string
		expires, revoked sql.NullInt64
		readOnly         sql.NullBool
		disabledKnown    sql.NullString
	)
	st, err := f.stmt(ctx, sqlKeyWithExposure)
	if err != nil {
		return principal{}, errDenied
	}
	err = st.QueryRowContext(ctx, id).Scan(&p.userID, &hash, &scopes, &expires, &revoked, &readOnly, &disabledKnown)
	if err != nil {
		return principal{}, errDenied
	}
	sum := sha256.Sum256([]byte(secret))
	now := time.Now().UnixMilli()
	if subtle.ConstantTimeCompare(hash, sum[:]) != 1 || revoked.Valid || (expires.Valid && now >= expires.Int64) {
		return principal{}, errDenied
	}
	if err := json.Unmarshal([]byte(scopes), &p.scopes); err != nil {
		return principal{}, errDenied
	}
	disabled = "[]"
	if disabledKnown.Valid {
		disabled = disabledKnown.String
	}
	if err := json.Unmarshal([]byte(disabled), &p.disabled); err != nil {
		return principal{}, errDenied
	}
	p.keyID, p.readOnly = id, readOnly.Valid && readOnly.Bool
	return p, nil
}

// floorTools is the catalog entry of each tool the floor answers.
var floorDefs = func() map[string]contracts.ToolDef {
	m := map[string]contracts.ToolDef{}
	for _, name := range []string{contracts.ToolListDecks, contracts.ToolSubmitReview, contracts.ToolAddCards} {
		d, ok := contracts.Tool(name)
		if !ok {
			panic("dbfloor: no tool " + name)
		}
		m[name] = d
	}
	return m
}()

// may checks a call's scopes and the account's exposure.
func (p principal) may(tool string) error {
	d := floorDefs[tool]
	for _, s := range d.Scopes {
		if !p.has(string(s)) {
			return errDenied
		}
	}
	if !p.allows(tool) || (d.Mutates && p.readOnly) {
		return errDenied
	}
	return nil
}

// writeTx runs fn in a transaction, serialised on SQLite.
func (f *dbFloor) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if f.writeMu != nil {
		f.writeMu.Lock()
		defer f.writeMu.Unlock()
	}
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

// audit inserts the call's audit row in the mutation's transaction, under
// a savepoint.
func (f *dbFloor) audit(ctx context.Context, tx *sql.Tx, p principal, op, tool string, reqID json.RawMessage, summary json.RawMessage, affected []string) error {
	ids, err := json.Marshal(affected)
	if err != nil {
		return err
	}
	if _, err := f.in(ctx, tx, sqlAuditSavepoint).ExecContext(ctx); err != nil {
		return err
	}
	_, err = f.in(ctx, tx, sqlInsertAudit).ExecContext(ctx, f.ids.NewID(), p.userID, string(contracts.CredentialAPIKey), p.keyID, tool,
		floorDefs[tool].AuditAction, string(boundedSummary(summary)), string(ids), string(contracts.AuditOK), "", string(reqID), time.Now().UnixMilli(), op)
	return err
}

// boundedSummary keeps the audit summary within the service's bound.
func boundedSummary(raw json.RawMessage) json.RawMessage {
	if len(raw) <= contracts.MaxAuditSummaryBytes {
		return raw
	}
	return json.RawMessage(fmt.Sprintf(`{"truncated":true,"bytes":%d}`, len(raw)))
}

func dbName(pg bool) string {
	if pg {
		return "Postgres"
	}
	return "SQLite"
}
