package mcpcore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Implementation names the server (serverInfo).
type Implementation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
}

// Options configures a Server. The zero value is usable.
type Options struct {
	// Instructions are served in initialize and server/discover.
	Instructions string
	// PageSize bounds list pages (default 100).
	PageSize int
	// ListTTL is the ttlMs cache hint on modern list/read/discover results (default 0: immediately stale).
	ListTTL time.Duration
	// DefaultTimeout bounds a tool call whose Tool.Timeout is 0; 0 means no limit.
	DefaultTimeout time.Duration
	// ToolVisible, when set and a principal is present, hides tools per caller.
	// It is consulted on every list and call (no caching), so settings changes
	// apply on the next request. A hidden tool is reported as unknown.
	ToolVisible func(ctx context.Context, name string) (bool, error)
	// Toolsets declares the sets tools belong to (Tool.Sets), in the order
	// their instructions are served; a request chooses among them (see
	// ToolSelection). None: every tool is always listed.
	Toolsets []Toolset
	// DefaultToolsets returns the sets of a request that chose none (the
	// account's default, say); nil, or a nil result, means every tool. An
	// error fails the request.
	DefaultToolsets func(ctx context.Context) ([]string, error)
	// Guardrails run around every tool call, in order.
	Guardrails []Guardrail
	// Approve decides calls of tools whose NeedsApproval returns true. When
	// nil, such calls are denied.
	Approve func(ctx context.Context, tool *Tool, args json.RawMessage) (bool, error)
	// ValidateOutput checks structuredContent against OutputSchema.
	ValidateOutput bool
	// StateKey is the HMAC-SHA-256 key protecting MRTR requestState. When
	// empty a random per-process key is used (state then only survives
	// within this process).
	StateKey []byte
	// StateTTL bounds the age of a requestState (default 10 minutes).
	StateTTL time.Duration
	// Logger receives handler panics and transport faults; nil discards.
	Logger *slog.Logger
	// Tasks, when set, serves the tasks extension in the 2026-07-28 era:
	// calls of tools with TaskSupport run as tasks kept by this store,
	// and tasks/get, tasks/update and tasks/cancel are served.
	Tasks TaskStore
}

// Catalog lists the definitions a Server serves.
type Catalog struct {
	Tools             []Tool
	Resources         []Resource
	ResourceTemplates []ResourceTemplate
	Prompts           []Prompt
}

// Server is a protocol engine serving one catalog. It is safe for
// concurrent use and keeps no per-client session.
type Server struct {
	info     Implementation
	infoJSON []byte
	opts     Options

	tools     []*toolEntry
	toolIdx   map[string]*toolEntry
	resources []*Resource
	resIdx    map[string]*Resource
	templates []*templateEntry
	prompts   []*Prompt
	promptIdx map[string]*Prompt

	capsJSON       []byte
	modernCapsJSON []byte // capsJSON plus the extensions of the modern era
	scoped         bool   // list results depend on the caller
	stateKey       []byte
	ttlMs          int64
	pageSize       int
	logger         *slog.Logger
	pages          pageCache

	pending  pendingRequests
	inflight inflightRegistry
}

type toolEntry struct {
	def     Tool
	json    []byte // serialized tools/list entry
	in      *schema
	out     *schema
	scopes  []string
	any     []string      // AnyScopes: one must be granted
	params  []headerParam // x-mcp-header parameters, mirrored as Mcp-Param-* headers
	appOnly bool          // _meta.ui.visibility ["app"]: hidden from modern clients without MCP Apps
}

type templateEntry struct {
	def ResourceTemplate
	ut  uriTemplate
}

// NewServer builds a server. It fails on duplicate or malformed names,
// schemas that do not compile (remote $ref is refused), and tools whose
// _meta points at an unregistered ui:// resource.
func NewServer(info Implementation, opts Options, cat Catalog) (*Server, error) {
	if info.Name == "" || info.Version == "" {
		return nil, errors.New("mcpcore: Implementation needs Name and Version")
	}
	s := &Server{
		info:      info,
		opts:      opts,
		toolIdx:   make(map[string]*toolEntry, len(cat.Tools)),
		resIdx:    make(map[string]*Resource, len(cat.Resources)),
		promptIdx: make(map[string]*Prompt, len(cat.Prompts)),
		pageSize:  opts.PageSize,
		logger:    opts.Logger,
		ttlMs:     opts.ListTTL.Milliseconds(),
	}
	if s.pageSize <= 0 {
		s.pageSize = 100
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.opts.StateTTL <= 0 {
		s.opts.StateTTL = 10 * time.Minute
	}
	s.stateKey = opts.StateKey
	if len(s.stateKey) == 0 {
		s.stateKey = make([]byte, 32)
		rand.Read(s.stateKey)
	}
	s.infoJSON, _ = json.Marshal(info)
	s.pending.m = make(map[string]*pendingReq)
	s.inflight = newInflightRegistry()

	var errs []error
	for _, t := range opts.Toolsets {
		if !validSetName(t.Name) || t.Name == AllToolsets {
			errs = append(errs, fmt.Errorf("toolset %q: name must be 1-32 characters of [a-z0-9_-], not %q", t.Name, AllToolsets))
		}
	}
	for i := range cat.Resources {
		r := &cat.Resources[i]
		switch {
		case r.URI == "" || r.Name == "":
			errs = append(errs, fmt.Errorf("resource %d: URI and Name are required", i))
		case s.resIdx[r.URI] != nil:
			errs = append(errs, fmt.Errorf("resource %q: duplicate URI", r.URI))
		default:
			s.resIdx[r.URI] = r
			s.resources = append(s.resources, r)
			s.scoped = s.scoped || len(r.Scopes) > 0
		}
	}
	for i := range cat.ResourceTemplates {
		t := cat.ResourceTemplates[i]
		ut, ok := parseURITemplate(t.URITemplate)
		if !ok || t.Name == "" {
			errs = append(errs, fmt.Errorf("resource template %q: invalid template or missing name", t.URITemplate))
			continue
		}
		s.templates = append(s.templates, &templateEntry{def: t, ut: ut})
		s.scoped = s.scoped || len(t.Scopes) > 0
	}
	for i := range cat.Prompts {
		p := &cat.Prompts[i]
		switch {
		case !validName(p.Name):
			errs = append(errs, fmt.Errorf("prompt %q: name must be 1-64 characters of [A-Za-z0-9_.-]", p.Name))
		case s.promptIdx[p.Name] != nil:
			errs = append(errs, fmt.Errorf("prompt %q: duplicate name", p.Name))
		default:
			s.promptIdx[p.Name] = p
			s.prompts = append(s.prompts, p)
		}
	}
	for i := range cat.Tools {
		te, err := s.newToolEntry(cat.Tools[i])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.tools = append(s.tools, te)
		s.toolIdx[te.def.Name] = te
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	s.scoped = s.scoped || opts.ToolVisible != nil || len(opts.Toolsets) > 0
	s.capsJSON = s.capabilities()
	s.modernCapsJSON = s.capsJSON
	if opts.Tasks != nil {
		s.modernCapsJSON = append(append(s.capsJSON[:len(s.capsJSON)-1:len(s.capsJSON)-1], `,"extensions":{"`+TasksExtension+`":{}}`...), '}')
	}
	return s, nil
}

func (s *Server) newToolEntry(t Tool) (*toolEntry, error) {
	if !validName(t.Name) {
		return nil, fmt.Errorf("tool %q: name must be 1-64 characters of [A-Za-z0-9_.-]", t.Name)
	}
	if s.toolIdx[t.Name] != nil {
		return nil, fmt.Errorf("tool %q: duplicate name", t.Name)
	}
	if t.Handler == nil {
		return nil, fmt.Errorf("tool %q: Handler is nil", t.Name)
	}
	for _, n := range t.Sets {
		if !s.hasSet(n) {
			return nil, fmt.Errorf("tool %q: toolset %q is not declared in Options.Toolsets", t.Name, n)
		}
	}
	if t.InputSchema == nil {
		t.InputSchema = json.RawMessage(`{"type":"object","additionalProperties":false}`)
	}
	var root struct {
		Type any `json:"type"`
	}
	args := t.InputSchema
	if t.ArgsSchema != nil {
		args = t.ArgsSchema
	}
	for _, raw := range []json.RawMessage{t.InputSchema, args} {
		root.Type = nil
		if err := json.Unmarshal(raw, &root); err != nil || root.Type != "object" {
			return nil, fmt.Errorf("tool %q: inputSchema and ArgsSchema must be JSON objects with \"type\":\"object\"", t.Name)
		}
	}
	in, err := compileSchema("mcp:///tools/"+t.Name+"/input.json", args)
	if err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema: %w", t.Name, err)
	}
	te := &toolEntry{def: t, in: in, scopes: t.Scopes, any: t.AnyScopes, appOnly: appOnly(t.Meta)}
	if te.params, err = headerParams(t.InputSchema); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if t.TaskSupport != TaskForbidden && t.TaskSupport != TaskOptional && t.TaskSupport != TaskRequired {
		return nil, fmt.Errorf("tool %q: unknown TaskSupport %q", t.Name, t.TaskSupport)
	}
	if t.TaskFromResult != nil && (t.TaskSupport != TaskOptional || t.Prepare != nil) {
		return nil, fmt.Errorf("tool %q: TaskFromResult needs TaskSupport optional and no Prepare", t.Name)
	}
	if t.OutputSchema != nil {
		if te.out, err = compileSchema("mcp:///tools/"+t.Name+"/output.json", t.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %q: outputSchema: %w", t.Name, err)
		}
	}
	if uri := uiResourceURI(t.Meta); uri != "" {
		if strings.HasPrefix(uri, "ui://") && s.resIdx[uri] == nil {
			return nil, fmt.Errorf("tool %q: _meta ui resource %q is not registered", t.Name, uri)
		}
	}
	s.scoped = s.scoped || len(t.Scopes) > 0 || len(t.AnyScopes) > 0
	if te.json, err = toolJSON(&t); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	return te, nil
}

// uiResourceURI returns _meta.ui.resourceUri (or the flat "ui/resourceUri").
func uiResourceURI(meta map[string]any) string {
	if ui, ok := meta["ui"].(map[string]any); ok {
		if u, ok := ui["resourceUri"].(string); ok {
			return u
		}
	}
	if u, ok := meta["ui/resourceUri"].(string); ok {
		return u
	}
	return ""
}

func toolJSON(t *Tool) ([]byte, error) {
	b := append([]byte(`{"name":`), appendString(nil, t.Name)...)
	b = appendOpt(b, "title", t.Title)
	b = appendOpt(b, "description", t.Description)
	b = append(b, `,"inputSchema":`...)
	b = append(b, compact(t.InputSchema)...)
	if t.OutputSchema != nil {
		b = append(b, `,"outputSchema":`...)
		b = append(b, compact(t.OutputSchema)...)
	}
	if t.Annotations != nil {
		js, err := json.Marshal(t.Annotations)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"annotations":`...)
		b = append(b, js...)
	}
	b, err := appendMeta(b, t.Meta)
	return append(b, '}'), err
}

// compact returns raw without insignificant whitespace.
func compact(raw []byte) []byte {
	var bb bytes.Buffer
	if err := json.Compact(&bb, raw); err != nil {
		return raw
	}
	return bb.Bytes()
}

// validSetName enforces 1-32 characters of [a-z0-9_-].
func validSetName(n string) bool {
	if len(n) == 0 || len(n) > 32 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validName enforces 1-64 characters of [A-Za-z0-9_.-].
func validName(n string) bool {
	if len(n) == 0 || len(n) > 64 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// capabilities declares only what the server honours.
func (s *Server) capabilities() []byte {
	b := []byte(`{`)
	sep := func() {
		if len(b) > 1 {
			b = append(b, ',')
		}
	}
	if len(s.tools) > 0 {
		sep()
		b = append(b, `"tools":{}`...)
	}
	if len(s.resources) > 0 || len(s.templates) > 0 {
		sep()
		b = append(b, `"resources":{}`...)
	}
	if len(s.prompts) > 0 {
		sep()
		b = append(b, `"prompts":{}`...)
	}
	if len(s.prompts) > 0 || len(s.templates) > 0 {
		sep()
		b = append(b, `"completions":{}`...)
	}
	sep()
	b = append(b, `"logging":{}`...)
	return append(b, '}')
}

// Tools returns the names of the registered tools, in list order.
func (s *Server) Tools() []string {
	out := make([]string, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.def.Name
	}
	return out
}
