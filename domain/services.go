// Package domain is Takhtabush's business logic: decks, cards, study
// sessions, statistics and plans, accounts, API keys, web sessions, tool
// exposure, audit and media. It implements the driving ports
// (ports.DeckService, ports.CardService, …) on top of the driven ports
// (ports.Database, ports.Clock, ports.IDSource, ports.Scheduler,
// ports.BlobStore) and decides who owns what: every call acts for the
// principal in its context and sees only that user's data.
//
// It never imports a database driver, an adapter, mcpcore or the
// apiserver; deps_test.go enforces that.
package domain

import (
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Services are all the domain services, sharing one set of dependencies.
type Services struct {
	Decks       *DeckService
	Cards       *CardService
	Notes       *NoteService
	Study       *StudyService
	Stats       *StatsService
	Media       *MediaService
	Accounts    *AccountService
	Keys        *KeyService
	WebSessions *WebSessionService
	Exposure    *ExposureService
	Audit       *AuditService
	Settings    *SettingsService
	AccountData *AccountDataService
	Jobs        *JobService
	Export      *ExportService
	Import      *ImportService
	Purge       *PurgeService
	Trash       *TrashService
}

// NewServices builds every service. blobs may be nil when media uploads
// are not served (AcceptUpload then fails as unavailable).
func NewServices(store ports.Database, blobs ports.BlobStore, clock ports.Clock, ids ports.IDSource, sched ports.Scheduler, cfg Config) *Services {
	d := NewDeps(store, blobs, clock, ids, sched, cfg)
	jobs := NewJobService(d)
	d.Jobs = jobs
	// Optimising changes the person's scheduling weights: study:write, the
	// scope optimize_parameters needs, reads and cancels its jobs.
	d.Jobs.Register(contracts.JobKindOptimizeParameters, contracts.ScopeStudyWrite, OptimizeHandler(d))
	svc := &Services{
		Decks:       &DeckService{d},
		Cards:       &CardService{d},
		Notes:       &NoteService{d},
		Study:       &StudyService{d},
		Stats:       NewStatsService(d),
		Media:       &MediaService{d},
		Accounts:    &AccountService{d},
		Keys:        &KeyService{d},
		WebSessions: &WebSessionService{d},
		Exposure:    &ExposureService{d},
		Audit:       &AuditService{d},
		Settings:    &SettingsService{d},
		AccountData: &AccountDataService{d},
		Jobs:        jobs,
		Export:      NewExportService(d),
		Purge:       &PurgeService{d},
		Trash:       &TrashService{d},
	}
	svc.Import = NewImportService(d, svc.Media, svc.Cards, svc.Jobs)
	return svc
}
