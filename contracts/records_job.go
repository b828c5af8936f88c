package contracts

import (
	"context"
	"encoding/json"
	"time"
)

// JobStatus is where a long job is in its life.
type JobStatus string

// The job statuses. Succeeded, failed and canceled are final.
const (
	JobQueued    JobStatus = "queued"
	JobRunning   JobStatus = "running"
	JobSucceeded JobStatus = "succeeded"
	JobFailed    JobStatus = "failed"
	JobCanceled  JobStatus = "canceled"
)

// JobStatuses lists the statuses in life order.
var JobStatuses = []JobStatus{JobQueued, JobRunning, JobSucceeded, JobFailed, JobCanceled}

// Final reports whether a job in this status has ended.
func (s JobStatus) Final() bool { return s == JobSucceeded || s == JobFailed || s == JobCanceled }

// The job kinds: the tool or page that started the job.
const (
	JobKindImportPackage      = "import_package"
	JobKindOptimizeParameters = "optimize_parameters"
	// JobKindRecomputeMemory recomputes the memory states (stability and
	// difficulty) of a preset's cards from their review history after its
	// weights changed.
	JobKindRecomputeMemory = "recompute_memory"
	// JobKindImportPreview is import_package's dry run (issue 26 §1): it
	// reads the package through the import's own planning and its result
	// is the ImportReport the import would have; nothing is imported, no
	// stage, no media stored, the upload kept.
	JobKindImportPreview = "import_preview"
)

// Job is a long job (an import, an optimisation) that runs detached from
// the request that started it. Result holds the kind's report once the
// job succeeded; Error says why it failed.
type Job struct {
	ID              string          `json:"id,omitempty"`
	Kind            string          `json:"kind"`
	Status          JobStatus       `json:"status"`
	Progress        JobProgress     `json:"progress"`
	Result          json.RawMessage `json:"result,omitempty"`
	Error           string          `json:"error,omitempty"`
	CancelRequested bool            `json:"cancelRequested,omitempty"`
	CreatedAt       time.Time       `json:"createdAt"`
	UpdatedAt       time.Time       `json:"updatedAt"`
	StartedAt       *time.Time      `json:"startedAt,omitempty"`
	FinishedAt      *time.Time      `json:"finishedAt,omitempty"`
	// DryRun marks a preview's job (JobKindImportPreview), which writes
	// nothing: its Result is the report the import would have.
	DryRun bool `json:"dryRun,omitempty"`
}

// JobProgress is how far a job has come: Done of Total units (Total 0
// while unknown) and what it is doing.
type JobProgress struct {
	Done    int64  `json:"done"`
	Total   int64  `json:"total"`
	Message string `json:"message,omitempty"`
	// Budget is the job's budget and how much of it the job has used
	// (absent before a runner starts it).
	Budget JobBudgetUse `json:"budget,omitzero"`
}

// JobBudget is what one run of a job may use, or has used, by kind: its
// running time (seconds), the items it handles (rows: notes, cards,
// media files and reviews of an import) and the bytes it stores or
// reads. A job that goes over any of them fails, naming the limit.
type JobBudget struct {
	Seconds int64 `json:"seconds"`
	Rows    int64 `json:"rows"`
	Bytes   int64 `json:"bytes"`
}

// JobBudgetUse is a job's budget (Limit) and how much of it is used.
type JobBudgetUse struct {
	Limit JobBudget `json:"limit"`
	Used  JobBudget `json:"used"`
}

// OptimizeParametersArgs are optimize_parameters' arguments: the preset
// to optimise, named by a deck that uses it or by its id; with neither,
// the account's only preset.
type OptimizeParametersArgs struct {
	DeckID   string `json:"deckId,omitempty"`
	PresetID string `json:"presetId,omitempty"`
}

// OptimizeReport is the result of an optimize_parameters job: the fitted
// weights, how the preset's weights (Before) and the fitted ones (After)
// predict the held-out cards' reviews, and whether the fitted weights
// were applied to the preset (only when their log loss is lower) and why.
type OptimizeReport struct {
	PresetID string `json:"presetId"`
	// Cards and Reviews count the history read: the preset's decks' cards
	// with reviews, and their ratings (cram sessions and manual
	// reschedules left out; a reset to new starts a card's history over).
	Cards   int `json:"cards"`
	Reviews int `json:"reviews"`
	// TrainCards are fitted on; HeldOutCards only score Before and After.
	TrainCards      int              `json:"trainCards"`
	HeldOutCards    int              `json:"heldOutCards"`
	PreviousWeights []float64        `json:"previousWeights"`
	Weights         []float64        `json:"weights,omitempty"` // fitted
	Before          *OptimizeMetrics `json:"before,omitempty"`
	After           *OptimizeMetrics `json:"after,omitempty"`
	Applied         bool             `json:"applied"`
	Reason          string           `json:"reason"`
}

// OptimizeMetrics score weights on the held-out reviews: log loss and
// RMSE (bins), the lower the better, over Reviews scored reviews (those a
// day or more after the card's previous one).
type OptimizeMetrics struct {
	LogLoss  float64 `json:"logLoss"`
	RMSEBins float64 `json:"rmseBins"`
	Reviews  int     `json:"reviews"`
}

// GetJobArgs are get_job's arguments.
type GetJobArgs struct {
	JobID string `json:"jobId"`
}

// CancelJobArgs are cancel_job's arguments.
type CancelJobArgs struct {
	JobID string `json:"jobId"`
}

// ProgressFunc receives progress while a request that asked for it is
// open (MCP: the caller sent a progressToken).
type ProgressFunc func(p JobProgress)

type progressKey struct{}

// WithProgress returns a context whose request wants progress reported to fn.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressFrom returns the progress receiver of the request in ctx, or nil
// when the request did not ask for progress.
func ProgressFrom(ctx context.Context) ProgressFunc {
	fn, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return fn
}

// ExportDeckArgs are export_deck's arguments. Scheduling (card states and
// the review log) and media are included unless set to false.
type ExportDeckArgs struct {
	DeckID            string `json:"deckId"`
	IncludeScheduling *bool  `json:"includeScheduling,omitempty"`
	IncludeMedia      *bool  `json:"includeMedia,omitempty"`
}

// ExportLink is where an export can be downloaded, until when.
type ExportLink struct {
	DownloadURL string    `json:"downloadUrl"`
	ExpiresAt   time.Time `json:"expiresAt"`
}
