package surface

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

// Config configures the surface.
type Config struct {
	// BaseURL is the public origin (e.g. https://takhtabush.example); the
	// study widget's CSP and links use it.
	BaseURL string
	// Version is served as serverInfo.version.
	Version string
	// Logger receives internal errors and audit failures; nil discards.
	Logger *slog.Logger
	// StateKey protects MRTR requestState; give every instance the same
	// key so a retry may land on any of them.
	StateKey []byte
	// WidgetDomain, when set, is the dedicated origin the operator gives
	// the study widget (MCP Apps ui.domain); empty sends none.
	WidgetDomain string
	// Timeout bounds every tool call, argument checks included (default
	// ToolTimeout).
	Timeout time.Duration
	// IDs mints the operation id of each mutating call, shared by its
	// change records and its audit row; nil mints none.
	IDs ports.IDSource
}

// ToolTimeout is the default bound of a tool call: well below what hosts
// wait, above the database's own bounds (statement and I/O timeouts), so
// a stalled database is reported as unavailable before the call times out.
const ToolTimeout = 30 * time.Second

// Tools is the Takhtabush tool surface over one McpServices: the catalog
// tools, the study widget resource, and the engine options they need.
type Tools struct {
	svc  ports.McpServices
	cfg  Config
	log  *slog.Logger
	defs map[string]contracts.ToolDef
}

// New returns the surface for svc. svc is shared by every request: it acts
// for the principal in each call's context.
func New(svc ports.McpServices, cfg Config) *Tools {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Tools{svc: svc, cfg: cfg, log: log, defs: map[string]contracts.ToolDef{}}
	for _, def := range contracts.Catalog() {
		s.defs[def.Name] = def
	}
	return s
}

// Catalog returns the engine definitions: one tool per catalog entry, and
// the study widget resource.
func (s *Tools) Catalog() mcpcore.Catalog {
	var cat mcpcore.Catalog
	for _, def := range contracts.Catalog() {
		cat.Tools = append(cat.Tools, s.tool(def))
	}
	cat.Resources = []mcpcore.Resource{s.widget()}
	return cat
}

// Options returns the engine options the surface needs: exposure settings
// read at call time through the port.
func (s *Tools) Options() mcpcore.Options {
	return mcpcore.Options{
		DefaultTimeout:  cmp.Or(s.cfg.Timeout, ToolTimeout),
		StateKey:        s.cfg.StateKey,
		Instructions:    Instructions,
		Toolsets:        engineToolsets(),
		DefaultToolsets: s.defaultToolsets,
		ToolVisible:     s.visible,
		Logger:          s.log,
		Tasks:           jobTasks{svc: s.svc, kinds: jobToolKinds()},
	}
}

// Instructions open the server's instructions, whatever toolsets a
// request chose; each chosen set's own follow (contracts.ToolsetDef).
const Instructions = "Takhtabush: flashcards with FSRS spaced repetition. Ids come from earlier results (list_decks, search_cards); never invent them."

// engineToolsets are the catalog's toolsets as the engine declares them.
func engineToolsets() []mcpcore.Toolset {
	var out []mcpcore.Toolset
	for _, t := range contracts.Toolsets() {
		out = append(out, mcpcore.Toolset{Name: t.Name, Description: t.Description, Instructions: t.Instructions})
	}
	return out
}

// defaultToolsets are the sets of a request that chose none: the acting
// account's default (its exposure settings), and the lean default
// without a principal.
func (s *Tools) defaultToolsets(ctx context.Context) ([]string, error) {
	if _, ok := contracts.PrincipalFrom(ctx); !ok {
		return contracts.LeanToolsets, nil
	}
	settings, err := s.svc.Exposure(ctx)
	if err != nil {
		return nil, err
	}
	return settings.ToolsetsOrDefault(), nil
}

// Implementation returns the serverInfo.
func (s *Tools) Implementation() mcpcore.Implementation {
	v := s.cfg.Version
	if v == "" {
		v = "dev"
	}
	return mcpcore.Implementation{Name: "takhtabush", Title: "Takhtabush flashcards", Version: v, WebsiteURL: s.cfg.BaseURL}
}

// NewServer builds the engine serving the Takhtabush surface over svc.
func NewServer(svc ports.McpServices, cfg Config) (*mcpcore.Server, error) {
	s := New(svc, cfg)
	return mcpcore.NewServer(s.Implementation(), s.Options(), s.Catalog())
}

// visible applies the account's exposure settings, read at call time.
func (s *Tools) visible(ctx context.Context, name string) (bool, error) {
	def, ok := s.defs[name]
	if !ok {
		return false, nil
	}
	settings, err := s.svc.Exposure(ctx)
	if err != nil {
		return false, err
	}
	return settings.Allows(def), nil
}

func (s *Tools) tool(def contracts.ToolDef) mcpcore.Tool {
	a := def.Annotations
	return mcpcore.Tool{
		Name:         def.Name,
		Title:        def.Title,
		Description:  def.Description,
		InputSchema:  def.ListedInput,
		ArgsSchema:   def.InputSchema,
		OutputSchema: def.OutputSchema,
		Annotations: &mcpcore.ToolAnnotations{
			ReadOnlyHint:    new(a.ReadOnlyHint),
			DestructiveHint: new(a.DestructiveHint),
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   new(a.OpenWorldHint),
		},
		Meta:           def.Meta,
		Sets:           def.Sets,
		Scopes:         contracts.ScopeStrings(def.Scopes),
		AnyScopes:      contracts.ScopeStrings(def.AnyScopes),
		Handler:        s.handler(def),
		TaskSupport:    mcpcore.TaskSupport(def.TaskSupport),
		TaskFromResult: taskFromJob(def),
	}
}

// handler runs one tool: dynamic scope and exposure needs, the service
// call, error mapping, the result, and the audit row of a mutation.
func (s *Tools) handler(def contracts.ToolDef) mcpcore.ToolHandler {
	run := dispatch[def.Name].run
	return func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
		ctx = withGrant(ctx)
		if len(def.ExactlyOneOf) > 0 {
			n := 0
			for _, a := range def.ExactlyOneOf {
				if hasArg(req.Arguments, a) {
					n++
				}
			}
			if n != 1 {
				return s.errorResult(ctx, def.Name, contracts.Errorf(contracts.KindInvalid,
					"give exactly one of %s", strings.Join(def.ExactlyOneOf, ", "))), nil
			}
		}
		given := func(name string) bool { return hasArg(req.Arguments, name) }
		// A dry run writes nothing: no transaction around it, no audit row.
		audited := def.Audited(given) && !isDryRun(req.Arguments)
		if def.WritesWith(given) {
			// A conditional write (render_study_session with a deck id)
			// needs the write scopes and an account that allows writes.
			if err := mcpcore.RequireScopes(ctx, contracts.ScopeStrings(def.WriteScopes)...); err != nil {
				return nil, err
			}
			settings, err := s.svc.Exposure(ctx)
			if err != nil {
				return s.errorResult(ctx, def.Name, err), nil
			}
			if settings.ReadOnly {
				return s.errorResult(ctx, def.Name, contracts.Errorf(contracts.KindForbidden,
					"this account is in read-only mode for agents: pass an existing sessionId instead of %s", def.MutatesWith)), nil
			}
			if w, ok := s.defs[def.WritesAs]; ok && !settings.Allows(w) {
				return s.errorResult(ctx, def.Name, contracts.Errorf(contracts.KindForbidden,
					"the account has switched off %s for agents, so %s cannot start one; pass an existing sessionId", w.Name, def.MutatesWith)), nil
			}
		}
		args, gated, err := s.confirmGate(ctx, def, req, run)
		if err != nil || gated != nil {
			return gated, err
		}
		req.Arguments = args
		if req.WantsProgress() {
			// A long job's tools wait for it while the request is open
			// and pass its progress on.
			ctx = contracts.WithProgress(ctx, func(p contracts.JobProgress) {
				_ = req.Progress(ctx, float64(p.Done), float64(p.Total), p.Message)
			})
		}
		var (
			out      any
			ev       contracts.AuditEvent
			auditErr error
			written  bool // the audit row went into the mutation's transaction
		)
		if audited && s.cfg.IDs != nil {
			ctx = contracts.WithOperationID(ctx, s.cfg.IDs.NewID())
		}
		if audited {
			// The mutation and, after it, its audit row in one transaction
			// (one commit); a failed call or commit is audited apart, below.
			err = s.svc.Atomic(ctx, func(ctx context.Context) error {
				var cerr error
				if out, cerr = run(ctx, s.svc, req.Arguments); cerr != nil {
					return cerr
				}
				ev = project(ctx, def, req, out, nil)
				auditErr, written = s.svc.WriteAudit(ctx, ev), true
				return nil
			})
			if err != nil {
				out, written = nil, false
			}
		} else {
			out, err = run(ctx, s.svc, req.Arguments)
		}
		var res *mcpcore.CallToolResult
		if err != nil {
			res = s.errorResult(ctx, def.Name, err)
		} else if res, err = s.result(def, out); err != nil {
			res = s.errorResult(ctx, def.Name, contracts.Internal(err))
		} else if written && def.ResultOperationID {
			withOperationID(ctx, def, out, res)
		}
		switch {
		case written && auditErr != nil:
			s.auditFailed(ctx, ev, auditErr, res)
		case audited && !written:
			s.audit(ctx, project(ctx, def, req, out, err), res)
		}
		if terr := transient(err, res); terr != nil {
			return nil, terr
		}
		return res, nil
	}
}

// result encodes a record as structuredContent and text. A study view's
// text leads with its sentence (progress and the study link, for hosts
// that drop widgets), and a tool that links an MCP Apps resource names it
// in its result's _meta too.
func (s *Tools) result(def contracts.ToolDef, out any) (*mcpcore.CallToolResult, error) {
	res, err := mcpcore.StructuredResult(out)
	if err != nil {
		return nil, err
	}
	if v, ok := out.(contracts.StudyView); ok && v.Lead != "" {
		res.Content = append([]mcpcore.Content{mcpcore.TextContent(v.Lead)}, res.Content...)
	}
	if _, ok := def.Meta["ui"]; ok {
		res.Meta = maps.Clone(def.Meta)
	}
	return res, nil
}

// hasArg reports whether the arguments object has a non-empty member name.
func hasArg(args json.RawMessage, name string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	v, ok := m[name]
	return ok && string(v) != "null" && string(v) != `""`
}

// isDryRun reports whether the arguments ask for a dry run ("dryRun": true).
func isDryRun(args json.RawMessage) bool {
	if !bytes.Contains(args, []byte(`"dryRun"`)) {
		return false
	}
	var a struct {
		DryRun bool `json:"dryRun"`
	}
	return json.Unmarshal(args, &a) == nil && a.DryRun
}
