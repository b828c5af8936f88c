package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// jobStore is the job view of a handle.
type jobStore struct{ *handle }

// Jobs returns the job store on h.
func (h *handle) Jobs() ports.JobStore { return jobStore{h} }

// Jobs returns the job store outside any transaction.
func (s *Store) Jobs() ports.JobStore { return s.root.Jobs() }

const jobColumns = `id, user_id, kind, scope, status, input, result, error, progress_done, progress_total, progress_message,
progress_budget, cancel_requested, lease_owner, lease_until, attempts, created_at, updated_at, started_at, finished_at`

// scanJob reads one row of jobColumns.
func scanJob(row interface{ Scan(...any) error }) (ports.JobRow, error) {
	var j ports.JobRow
	var input string
	var result sql.NullString
	var leaseUntil, created, updated int64
	var started, finished sql.NullInt64
	var budget string
	err := row.Scan(&j.ID, &j.UserID, &j.Kind, &j.Scope, &j.Status, &input, &result, &j.Error,
		&j.Progress.Done, &j.Progress.Total, &j.Progress.Message, &budget, &j.CancelRequested, &j.LeaseOwner, &leaseUntil, &j.Attempts,
		&created, &updated, &started, &finished)
	if err != nil {
		return ports.JobRow{}, err
	}
	if budget != "" {
		if err := json.Unmarshal([]byte(budget), &j.Progress.Budget); err != nil {
			return ports.JobRow{}, err
		}
	}
	j.Input = []byte(input)
	if result.Valid {
		j.Result = []byte(result.String)
	}
	j.LeaseUntil, j.CreatedAt, j.UpdatedAt = fromMs(leaseUntil), fromMs(created), fromMs(updated)
	j.StartedAt, j.FinishedAt = fromNullMs(started), fromNullMs(finished)
	return j, nil
}

// CreateJob inserts a queued job when the account has fewer than
// contracts.MaxQueuedJobs queued (rate_limited otherwise). Not found for
// an unknown user; conflict on a duplicate id.
func (s jobStore) CreateJob(ctx context.Context, j ports.JobRow) error {
	input := string(j.Input)
	if input == "" {
		input = "{}"
	}
	r, err := s.exec(ctx, `INSERT INTO jobs (id, user_id, kind, scope, status, input, progress_done, progress_total, progress_message, created_at, updated_at)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10
WHERE (SELECT COUNT(*) FROM jobs WHERE user_id = $2 AND status = 'queued') < $11`,
		j.ID, j.UserID, j.Kind, string(j.Scope), string(contracts.JobQueued), input, j.Progress.Done, j.Progress.Total, j.Progress.Message, ms(j.CreatedAt),
		contracts.MaxQueuedJobs)
	if err := s.fail(ctx, err, "create job", failMsgs{unique: "a job with this id already exists", fk: "user not found"}); err != nil {
		return err
	}
	// No row: the account has its queue full (an unknown account has
	// none queued, so its insert fails on the foreign key above).
	if n, err := s.affected(ctx, r, nil, "create job"); err != nil || n == 1 {
		return err
	}
	return contracts.Refused(contracts.LimitQueuedJobs, 0, "this account has %d jobs waiting, the most it may have; wait for one to start (get_job shows its status) or cancel one (cancel_job)", contracts.MaxQueuedJobs)
}

// GetJob returns one of the user's jobs. Not found when absent.
func (s jobStore) GetJob(ctx context.Context, userID, jobID string) (ports.JobRow, error) {
	j, err := scanJob(s.q.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE user_id = $1 AND id = $2`, userID, jobID))
	if errNoRows(err) {
		return ports.JobRow{}, notFound("job")
	}
	if err != nil {
		return ports.JobRow{}, s.s.wrap(ctx, err, "get job")
	}
	return j, nil
}

// LatestJob returns the user's newest job of kind with exactly input
// (the jobs_user index: an account holds few jobs, ended ones purged).
// Not found when there is none.
func (s jobStore) LatestJob(ctx context.Context, userID, kind string, input []byte) (ports.JobRow, error) {
	j, err := scanJob(s.q.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE user_id = $1 AND kind = $2 AND input = $3
ORDER BY created_at DESC, id DESC LIMIT 1`, userID, kind, string(input)))
	if errNoRows(err) {
		return ports.JobRow{}, notFound("job")
	}
	if err != nil {
		return ports.JobRow{}, s.s.wrap(ctx, err, "latest job")
	}
	return j, nil
}

// runnable is the condition of a job a runner may claim at $1; runnableJ
// is it on the alias j.
const (
	runnable  = `(status = 'queued' OR (status = 'running' AND lease_until < $1))`
	runnableJ = `(j.status = 'queued' OR (j.status = 'running' AND j.lease_until < $1))`
)

// ClaimJob leases a runnable job of an account with no other job
// running, taking the accounts in turn: first the account whose last job
// started longest ago (never counts as longest), then its oldest job. The
// UPDATE re-checks the condition, so of two claimers of one job only one
// changes the row, and the index jobs_one_running refuses a second
// running job of one account claimed at the same moment on another
// instance: that claim finds nothing this time.
func (s jobStore) ClaimJob(ctx context.Context, owner string, now, leaseUntil time.Time) (ports.JobRow, bool, error) {
	j, err := scanJob(s.q.QueryRowContext(ctx, `UPDATE jobs SET status = 'running', lease_owner = $2, lease_until = $3,
attempts = attempts + 1, started_at = COALESCE(started_at, $1), updated_at = $1
WHERE id = (SELECT j.id FROM jobs j WHERE `+runnableJ+`
	AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.user_id = j.user_id AND r.status = 'running' AND r.id <> j.id)
	ORDER BY (SELECT COALESCE(MAX(l.started_at), 0) FROM jobs l WHERE l.user_id = j.user_id), j.created_at, j.id LIMIT 1)
AND `+runnable+`
RETURNING `+jobColumns, ms(now), owner, ms(leaseUntil)))
	if errNoRows(err) || (err != nil && s.s.d.Classify(err) == ClassUnique) {
		return ports.JobRow{}, false, nil
	}
	if err != nil {
		return ports.JobRow{}, false, s.s.wrap(ctx, err, "claim job")
	}
	return j, true, nil
}

// RenewLease extends owner's lease and stores progress. Conflict when
// owner no longer holds it.
func (s jobStore) RenewLease(ctx context.Context, jobID, owner string, p contracts.JobProgress, now, leaseUntil time.Time) (bool, error) {
	var cancel bool
	err := s.q.QueryRowContext(ctx, `UPDATE jobs SET lease_until = $3, progress_done = $4, progress_total = $5, progress_message = $6, updated_at = $7,
progress_budget = $8
WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING cancel_requested`,
		jobID, owner, ms(leaseUntil), p.Done, p.Total, p.Message, ms(now), budgetJSON(p.Budget)).Scan(&cancel)
	if errNoRows(err) {
		return false, contracts.Errorf(contracts.KindConflict, "this runner no longer holds the job's lease")
	}
	if err != nil {
		return false, s.s.wrap(ctx, err, "renew job lease")
	}
	return cancel, nil
}

// budgetJSON is the stored form of a job's budget use: empty when unset.
func budgetJSON(b contracts.JobBudgetUse) string {
	if b == (contracts.JobBudgetUse{}) {
		return ""
	}
	out, _ := json.Marshal(b) // a struct of integers always marshals
	return string(out)
}

// FinishJob ends a running job owner holds.
func (s jobStore) FinishJob(ctx context.Context, jobID, owner string, status contracts.JobStatus, result []byte, errMsg string, at time.Time) error {
	if !status.Final() {
		return contracts.Errorf(contracts.KindInvalid, "job status %q is not final", status)
	}
	var res any
	if result != nil {
		res = string(result)
	}
	r, err := s.exec(ctx, `UPDATE jobs SET status = $3, result = $4, error = $5, finished_at = $6, updated_at = $6, lease_until = 0
WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, jobID, owner, string(status), res, errMsg, ms(at))
	n, err := s.affected(ctx, r, err, "finish job")
	if err != nil {
		return err
	}
	if n == 0 {
		return contracts.Errorf(contracts.KindConflict, "this runner no longer holds the job's lease")
	}
	return nil
}

// RequestCancel cancels a queued job at once and marks a running one.
func (s jobStore) RequestCancel(ctx context.Context, userID, jobID string, at time.Time) (ports.JobRow, error) {
	_, err := s.exec(ctx, `UPDATE jobs SET
status = CASE WHEN status = 'queued' THEN 'canceled' ELSE status END,
finished_at = CASE WHEN status = 'queued' THEN $3 ELSE finished_at END,
cancel_requested = TRUE, updated_at = $3
WHERE user_id = $1 AND id = $2 AND status IN ('queued', 'running')`, userID, jobID, ms(at))
	if err != nil {
		return ports.JobRow{}, s.s.wrap(ctx, err, "cancel job")
	}
	return s.GetJob(ctx, userID, jobID)
}
