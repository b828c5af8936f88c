package harness

import (
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// Metrics are the per-request figures of one measurement. Server figures
// come from the child process's counters; latency and throughput are seen by
// the load generator.
type Metrics struct {
	CPUMicros float64 `json:"cpuMicrosPerReq"`
	Allocs    float64 `json:"allocsPerReq"`
	Bytes     float64 `json:"bytesPerReq"`
	RPS       float64 `json:"reqPerSec"`
	P50Micros float64 `json:"p50Micros"`
	P99Micros float64 `json:"p99Micros"`
	// Statements is database statements per request (0 without a database).
	Statements float64 `json:"statementsPerReq"`
}

// fields lists the metrics in report order, with pointers into m.
func (m *Metrics) fields() []*float64 {
	return []*float64{&m.CPUMicros, &m.Allocs, &m.Bytes, &m.RPS, &m.P50Micros, &m.P99Micros, &m.Statements}
}

// Sample is one measurement of one server on one scenario.
type Sample struct {
	Round    int     `json:"round"`
	Server   string  `json:"server"`
	Scenario string  `json:"scenario"`
	Requests int     `json:"requests"`
	Limit    int     `json:"requestLimit"` // the measurement's request limit
	Seconds  float64 `json:"seconds"`
	GCs      uint32  `json:"gcs"`
	Metrics
}

// Cell is the summary of one server on one scenario across rounds.
type Cell struct {
	Scenario string `json:"scenario"`
	Server   string `json:"server"`
	Rounds   int    `json:"rounds"`
	// Median holds the median of each metric across rounds, taken independently.
	Median Metrics `json:"median"`
	// BaselineScenario is the baseline server's scenario Ratio divides
	// by: this cell's own, or for a scenario the baseline does not
	// answer (a full-stack mutation), the baseline's echo.
	BaselineScenario string `json:"baselineScenario"`
	// Ratio is Median divided by the baseline's Median; nil without a baseline.
	Ratio *Metrics `json:"ratioToBaseline,omitempty"`
	// Goals are the scenario's CPU goals and how they went.
	Goals []GoalResult `json:"goals,omitempty"`
}

// GoalResult is one CPU goal of a cell: met when the cell's CPU per
// request is at most Max times Against's; missed when Against did not run.
type GoalResult struct {
	scenario.Goal
	// AgainstCPU is the compared cell's CPU µs per request (0: not run).
	AgainstCPU float64 `json:"againstCpuMicros"`
	// Ratio is the cell's CPU per request divided by AgainstCPU.
	Ratio float64 `json:"ratio"`
	Met   bool    `json:"met"`
	// NotRun says why the compared server did not run, when it did not.
	NotRun string `json:"notRun,omitempty"`
}

// ServerInfo describes a compared server.
type ServerInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Checked lists the scenarios whose responses passed the full sanity check.
	Checked []string `json:"checked"`
	// Calls counts the requests each scenario sent in the whole run
	// (sanity check, warm-ups and measurements); every one succeeded.
	Calls map[string]int `json:"calls,omitempty"`
	// Verified is the server's own check of the run's effects (for the
	// full stack: audit rows counted against the mutating calls).
	Verified string `json:"verified,omitempty"`
	// Prepared holds, for scenarios whose requests use something up, how
	// many calls the server prepared and the share each phase may send.
	Prepared map[string]Prepared `json:"prepared,omitempty"`
}

// Prepared is what a server prepared for a scenario whose requests use
// something up (pending reviews), and the resulting phase limits.
type Prepared struct {
	Calls        int `json:"calls"`
	WarmupLimit  int `json:"warmupRequestLimit"`
	MeasureLimit int `json:"requestLimit"`
}

// RunInfo records the settings and host of a run.
type RunInfo struct {
	Started        time.Time `json:"started"`
	GoVersion      string    `json:"goVersion"`
	NumCPU         int       `json:"numCPU"`
	Baseline       string    `json:"baseline"`
	Rounds         int       `json:"rounds"`
	Workers        int       `json:"workers"`
	WarmupRequests int       `json:"warmupRequests"`
	WarmupSeconds  float64   `json:"warmupSeconds"`
	Requests       int       `json:"requests"`
	Seconds        float64   `json:"seconds"`
}

// Report is the result of a harness run.
type Report struct {
	Run       RunInfo      `json:"run"`
	Servers   []ServerInfo `json:"servers"`
	Scenarios []string     `json:"scenarios"`
	Cells     []Cell       `json:"cells"`
	Samples   []Sample     `json:"samples"`
	// NotRun lists the servers that could not run on this machine, with why.
	NotRun map[string]string `json:"notRun,omitempty"`

	specs map[[2]string]scenario.Scenario // server × scenario name → its definition
}

func newReport(cfg Config, srvs []servers.Server) *Report {
	gv, ncpu := hostInfo()
	r := &Report{Run: RunInfo{
		Started: time.Now().UTC(), GoVersion: gv, NumCPU: ncpu, Baseline: cfg.Baseline,
		Rounds: cfg.Rounds, Workers: cfg.Workers,
		WarmupRequests: cfg.WarmupRequests, WarmupSeconds: cfg.Warmup.Seconds(),
		Requests: cfg.Requests, Seconds: cfg.Duration.Seconds(),
	}, specs: map[[2]string]scenario.Scenario{}}
	for _, s := range srvs {
		r.Servers = append(r.Servers, ServerInfo{Name: s.Name(), Description: s.Description()})
		for _, sc := range s.Scenarios() {
			r.specs[[2]string{s.Name(), sc.Name}] = sc
			if !slices.Contains(r.Scenarios, sc.Name) {
				r.Scenarios = append(r.Scenarios, sc.Name)
			}
		}
	}
	return r
}

// notRun records the servers that could not run and the goals of theirs
// that are therefore missed.
func (r *Report) notRun(all []servers.Server, why map[string]string) {
	if len(why) == 0 {
		return
	}
	r.NotRun = why
	for _, s := range all {
		if _, ok := why[s.Name()]; !ok {
			continue
		}
		for _, sc := range s.Scenarios() {
			r.specs[[2]string{s.Name(), sc.Name}] = sc
		}
	}
}

func (r *Report) addChecked(server, scenario string) {
	r.server(server).Checked = append(r.server(server).Checked, scenario)
}

func (r *Report) setCalls(server string, calls map[string]int) { r.server(server).Calls = calls }

func (r *Report) setVerified(server, summary string) { r.server(server).Verified = summary }

func (r *Report) setPrepared(server, scenario string, p Prepared) {
	s := r.server(server)
	if s.Prepared == nil {
		s.Prepared = map[string]Prepared{}
	}
	s.Prepared[scenario] = p
}

// server returns the entry of a compared server.
func (r *Report) server(name string) *ServerInfo {
	return &r.Servers[slices.IndexFunc(r.Servers, func(s ServerInfo) bool { return s.Name == name })]
}

// Cell returns the summary for scenario × server.
func (r *Report) Cell(scenario, server string) (Cell, bool) {
	i := slices.IndexFunc(r.Cells, func(c Cell) bool { return c.Scenario == scenario && c.Server == server })
	if i < 0 {
		return Cell{}, false
	}
	return r.Cells[i], true
}

// aggregate computes the per-cell medians and the ratios to the baseline.
func (r *Report) aggregate(baseline string) {
	r.Cells = nil
	for _, sc := range r.Scenarios {
		for _, s := range r.Servers {
			var rounds []Sample
			for _, smp := range r.Samples {
				if smp.Scenario == sc && smp.Server == s.Name {
					rounds = append(rounds, smp)
				}
			}
			if len(rounds) == 0 {
				continue
			}
			spec := r.specs[[2]string{s.Name, sc}]
			c := Cell{Scenario: sc, Server: s.Name, Rounds: len(rounds), BaselineScenario: spec.BaselineScenario()}
			for i, f := range c.Median.fields() {
				vals := make([]float64, len(rounds))
				for j := range rounds {
					vals[j] = *rounds[j].Metrics.fields()[i]
				}
				*f = median(vals)
			}
			r.Cells = append(r.Cells, c)
		}
	}
	for i := range r.Cells {
		base, ok := r.Cell(r.Cells[i].BaselineScenario, baseline)
		if !ok {
			continue
		}
		ratio := r.Cells[i].Median
		bf := base.Median.fields()
		for j, f := range ratio.fields() {
			if *bf[j] != 0 {
				*f /= *bf[j]
			} else {
				*f = 0
			}
		}
		r.Cells[i].Ratio = &ratio
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		for _, g := range r.specs[[2]string{c.Server, c.Scenario}].Goals {
			res := GoalResult{Goal: g}
			if against, ok := r.Cell(g.Scenario, g.Server); ok && against.Median.CPUMicros > 0 {
				res.AgainstCPU = against.Median.CPUMicros
				res.Ratio = c.Median.CPUMicros / res.AgainstCPU
				res.Met = res.Ratio <= g.Max
			} else if why, ok := r.NotRun[g.Server]; ok {
				res.NotRun = why
			} else {
				res.NotRun = "not in this run"
			}
			c.Goals = append(c.Goals, res)
		}
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
