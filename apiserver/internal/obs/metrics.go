package obs

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/takhtabush/takhtabush/contracts"
)

// Tool outcomes, the values of the outcome label of tool metrics.
const (
	OutcomeOK        = "ok"         // a result without isError
	OutcomeToolError = "tool_error" // an isError result (invalid input, not found, …)
	OutcomeError     = "error"      // a JSON-RPC error (scope, internal fault)
)

// OtherTool is the tool label of any name outside the catalog.
const OtherTool = "other"

// Metrics are the service's Prometheus metrics, on a registry of their
// own so several apps can live in one process (tests, benchmarks). Every
// label has a bounded set of values: routes are mux patterns, tools come
// from the catalog.
type Metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	errors        *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	toolCalls     *prometheus.CounterVec
	toolLatency   *prometheus.HistogramVec
	auditFailures prometheus.Counter
	tools         map[string]bool
	limits        limitMetrics
}

// NewMetrics registers the metrics, with the Go runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "takhtabush_http_requests_total", Help: "HTTP requests by route (mux pattern), method and status code.",
		}, []string{"route", "method", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "takhtabush_http_request_errors_total", Help: "HTTP requests answered with a 5xx status, by route and method.",
		}, []string{"route", "method"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "takhtabush_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "takhtabush_mcp_tool_calls_total", Help: "MCP tool calls by tool and outcome (ok, tool_error, error).",
		}, []string{"tool", "outcome"}),
		toolLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "takhtabush_mcp_tool_call_duration_seconds", Help: "MCP tool call latency by tool.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"tool"}),
		auditFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "takhtabush_audit_write_failures_total", Help: "Audit rows that could not be written (the mutation stayed applied).",
		}),
		tools: map[string]bool{},
	}
	for _, t := range contracts.Catalog() {
		m.tools[t.Name] = true
	}
	m.limits = newLimitMetrics(m.reg)
	m.reg.MustRegister(m.requests, m.errors, m.latency, m.toolCalls, m.toolLatency, m.auditFailures,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry returns the registry, for tests and extra collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveRequest counts one HTTP request.
func (m *Metrics) ObserveRequest(route, method string, status int, d time.Duration) {
	method = boundedMethod(method)
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	if status >= 500 {
		m.errors.WithLabelValues(route, method).Inc()
	}
	m.latency.WithLabelValues(route, method).Observe(d.Seconds())
}

// ObserveTool counts one tool call; a name outside the catalog is "other".
func (m *Metrics) ObserveTool(tool, outcome string, d time.Duration) {
	tool = m.ToolLabel(tool)
	m.toolCalls.WithLabelValues(tool, outcome).Inc()
	m.toolLatency.WithLabelValues(tool).Observe(d.Seconds())
}

// ToolLabel returns name when it is a catalog tool, and "other" otherwise.
func (m *Metrics) ToolLabel(name string) string {
	if m.tools[name] {
		return name
	}
	return OtherTool
}

// AuditFailed counts an audit write failure.
func (m *Metrics) AuditFailed() { m.auditFailures.Inc() }

func boundedMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return "OTHER"
}
