// Package kernel is what every room of the domain shares: the services'
// dependencies and Config (Deps, NewDeps), the acting principal and the
// ownership checks (Actor, UserID, PlausibleID, NotFound), the error
// helpers (Fail), paging and cursors (PageLimit, Page, DecodeCursor), the
// clock (Deps.Now) and ids, the learner's day and the account-settings
// reader (AccountSettings, LearnerDay, DayNumber, the day cache), the
// daily write quota and the holdings caps (ChargeWrites, CheckHoldings,
// CheckDecks, CheckCards), the audit and security-event append
// (RecordEvent), token hashing and the OAuth purge grace, and the job
// contract the rooms use to reach the background room (Jobs, JobRun,
// JobHandler).
//
// It may use contracts, ports and the pure packages (content, fsrs, …).
// It must not import any room (identity, library, study, exchange,
// background) nor the root package domain: every room imports it, so an
// arrow back would be a cycle. It is internal so that only the domain
// module sees it; the root re-exports what callers need (domain.Config).
package kernel
