package mcpbind

import (
	"context"
	"log/slog"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/mcpcore/surface"
	"github.com/takhtabush/takhtabush/ports"
)

// ToolObserver receives one observation per tool call that reached its handler.
type ToolObserver interface {
	// ObserveTool records a call of tool with its outcome and duration.
	ObserveTool(tool, outcome string, d time.Duration)
}

// ServerConfig configures the MCP engine.
type ServerConfig struct {
	BaseURL string
	Version string
	Logger  *slog.Logger
	// Observer receives per-tool metrics; nil records none.
	Observer ToolObserver
	// StateKey protects MRTR requestState across instances.
	StateKey []byte
	// WidgetDomain is the study widget's dedicated origin (ui.domain), if any.
	WidgetDomain string
	// Timeout bounds each tool call (0: the surface's default).
	Timeout time.Duration
	// IDs mints each mutating call's operation id (nil: domain.RandomIDs).
	IDs ports.IDSource
}

// NewServer builds the MCP engine serving the Takhtabush surface over svc,
// with every tool handler instrumented: its name goes to the request's log
// line, and its outcome and latency to the observer.
func NewServer(svc ports.McpServices, cfg ServerConfig) (*mcpcore.Server, error) {
	ids := cfg.IDs
	if ids == nil {
		ids = domain.RandomIDs{}
	}
	s := surface.New(svc, surface.Config{BaseURL: cfg.BaseURL, Version: cfg.Version, Logger: cfg.Logger, StateKey: cfg.StateKey,
		Timeout: cfg.Timeout, IDs: ids, WidgetDomain: cfg.WidgetDomain})
	cat := s.Catalog()
	for i := range cat.Tools {
		cat.Tools[i].Handler = instrument(cat.Tools[i].Name, cat.Tools[i].Handler, cfg.Observer)
	}
	return mcpcore.NewServer(s.Implementation(), s.Options(), cat)
}

func instrument(name string, h mcpcore.ToolHandler, o ToolObserver) mcpcore.ToolHandler {
	return func(ctx context.Context, req *mcpcore.CallRequest) (*mcpcore.CallToolResult, error) {
		obs.RequestFrom(ctx).SetTool(name)
		start := time.Now()
		res, err := h(ctx, req)
		if o != nil {
			outcome := obs.OutcomeOK
			switch {
			case err != nil:
				outcome = obs.OutcomeError
			case res != nil && res.IsError:
				outcome = obs.OutcomeToolError
			}
			o.ObserveTool(name, outcome, time.Since(start))
		}
		return res, err
	}
}

// JobKinds registers job kinds; *operations.JobService is one.
type JobKinds interface {
	// Register makes kind runnable with h; its jobs need scope.
	Register(kind string, scope contracts.Scope, h domain.JobHandler)
}

// RegisterTaskJobs registers the job kind of every catalog tool that may
// run as an MCP task: its job runs the call on srv (surface.RunTaskJob),
// on whichever instance's runner claims it, under the tool's scope. A tool
// that starts a job of its own (JobKind) needs none: its task is that job.
func RegisterTaskJobs(jobs JobKinds, srv *mcpcore.Server) {
	for _, def := range contracts.Catalog() {
		if def.TaskSupport == "" || def.JobKind != "" || len(def.Scopes) != 1 {
			continue
		}
		jobs.Register(surface.TaskJobKind(def.Name), def.Scopes[0], func(ctx context.Context, run *domain.JobRun) (any, error) {
			return surface.RunTaskJob(ctx, srv, run.Job.Input)
		})
	}
}
