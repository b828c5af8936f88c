// Package domain composes Takhtabush's business logic from its rooms
// (ARCHITECTURE.md): identity (accounts, keys, sessions, OAuth), library
// (decks, cards, notes, media, trash), study (sessions, reviews, stats,
// plans), filtered (filtered decks), exchange (package import, export, account data) and background
// (jobs, purge), over a shared kernel (domain/internal/kernel). The rooms
// implement the driving ports (ports.DeckService, ports.CardService, …) on
// top of the driven ports (ports.Database, ports.Clock, ports.IDSource,
// ports.Scheduler, ports.BlobStore) and decide who owns what: every call
// acts for the principal in its context and sees only that user's data.
//
// This package holds only the composition (NewServices, Services) and
// what callers need to build it (Config, the clock and ids). No room
// imports it. The domain never imports a database driver, an adapter,
// mcpcore or the apiserver; apiserver/deps_test.go enforces that and the
// rooms' arrows.
package domain

import (
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/filtered"
	"github.com/takhtabush/takhtabush/domain/identity"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/domain/stats"
	"github.com/takhtabush/takhtabush/domain/study"
	"github.com/takhtabush/takhtabush/domain/undo"
	"github.com/takhtabush/takhtabush/ports"
)

// Services are all the domain services, sharing one set of dependencies.
type Services struct {
	Decks       *library.DeckService
	Cards       *library.CardService
	Notes       *library.NoteService
	Study       *study.StudyService
	Stats       *stats.StatsService
	Media       *library.MediaService
	Accounts    *identity.AccountService
	Keys        *identity.KeyService
	WebSessions *identity.WebSessionService
	Exposure    *identity.ExposureService
	Audit       *identity.AuditService
	Settings    *identity.SettingsService
	AccountData *exchange.AccountDataService
	Jobs        *background.JobService
	Export      *exchange.ExportService
	Import      *exchange.ImportService
	Purge       *background.PurgeService
	Trash       *library.TrashService
	Undo        *undo.UndoService
	Confirm     *identity.ConfirmService
	Filtered    *filtered.Service
}

// NewServices builds every service. blobs may be nil when media uploads
// are not served (AcceptUpload then fails as unavailable).
func NewServices(store ports.Database, blobs ports.BlobStore, clock ports.Clock, ids ports.IDSource, sched ports.Scheduler, cfg kernel.Config) *Services {
	d := kernel.NewDeps(store, blobs, clock, ids, sched, cfg)
	jobs := background.NewJobService(d)
	d.Jobs = jobs
	// Optimising changes the person's scheduling weights: study:write, the
	// scope optimize_parameters needs, reads and cancels its jobs.
	d.Jobs.Register(contracts.JobKindOptimizeParameters, contracts.ScopeStudyWrite, study.OptimizeHandler(d))
	// New weights reach every card of the preset (update_deck, the web
	// form, undo_changes): decks:write, the scope that changes them.
	d.Jobs.Register(contracts.JobKindRecomputeMemory, contracts.ScopeDecksWrite, study.RecomputeHandler(d))
	svc := &Services{
		Decks:       &library.DeckService{Deps: d},
		Cards:       &library.CardService{Deps: d},
		Notes:       &library.NoteService{Deps: d},
		Study:       &study.StudyService{Deps: d},
		Stats:       stats.NewStatsService(d),
		Media:       &library.MediaService{Deps: d},
		Accounts:    &identity.AccountService{Deps: d},
		Keys:        &identity.KeyService{Deps: d},
		WebSessions: &identity.WebSessionService{Deps: d},
		Exposure:    &identity.ExposureService{Deps: d},
		Audit:       &identity.AuditService{Deps: d},
		Settings:    &identity.SettingsService{Deps: d},
		AccountData: &exchange.AccountDataService{Deps: d},
		Jobs:        jobs,
		Export:      exchange.NewExportService(d),
		Purge:       &background.PurgeService{Deps: d},
		Trash:       &library.TrashService{Deps: d},
		Confirm:     &identity.ConfirmService{Deps: d},
		Filtered:    &filtered.Service{Deps: d},
	}
	svc.Import = exchange.NewImportService(d, svc.Media, svc.Cards, svc.Jobs)
	svc.Undo = &undo.UndoService{Deps: d, Cards: svc.Cards, Decks: svc.Decks, Notes: svc.Notes, Trash: svc.Trash, Settings: svc.Settings}
	return svc
}
