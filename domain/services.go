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
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/content"
	"github.com/takhtabush/takhtabush/ports"
)

// Config holds the domain's settings. Zero fields take the defaults named
// on each field.
type Config struct {
	// BaseURL is the public origin, e.g. "https://takhtabush.example", used
	// for absolute media upload URLs and study links. A trailing slash is
	// dropped.
	BaseURL string
	// KeyPepper, when set, makes API key hashes HMAC-SHA-256 keyed with it
	// instead of plain SHA-256, so a database dump alone cannot be used to
	// check guessed keys. Changing it invalidates every key.
	KeyPepper []byte
	// LoginLinkTTL is how long a sign-in link stays valid (default 15m).
	LoginLinkTTL time.Duration
	// WebSessionTTL is how long a web session lasts (default 30 days).
	WebSessionTTL time.Duration
	// StudySessionTTL is how long a study session handle lives (default
	// contracts.SessionTTL).
	StudySessionTTL time.Duration
	// MediaIntentTTL is how long an upload intent stays open (default
	// contracts.MediaIntentTTL).
	MediaIntentTTL time.Duration
	// KeyTouchInterval is the least time between two last-used updates of
	// one API key (default 1m).
	KeyTouchInterval time.Duration
	// Limits are the per-account daily write quota and caps.
	Limits Limits
}

// Defaults.
const (
	DefaultLoginLinkTTL     = 15 * time.Minute
	DefaultWebSessionTTL    = 30 * 24 * time.Hour
	DefaultKeyTouchInterval = time.Minute
)

func (c Config) withDefaults() Config {
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.LoginLinkTTL <= 0 {
		c.LoginLinkTTL = DefaultLoginLinkTTL
	}
	if c.WebSessionTTL <= 0 {
		c.WebSessionTTL = DefaultWebSessionTTL
	}
	if c.StudySessionTTL <= 0 {
		c.StudySessionTTL = contracts.SessionTTL
	}
	if c.MediaIntentTTL <= 0 {
		c.MediaIntentTTL = contracts.MediaIntentTTL
	}
	if c.KeyTouchInterval <= 0 {
		c.KeyTouchInterval = DefaultKeyTouchInterval
	}
	c.KeyPepper = append([]byte(nil), c.KeyPepper...)
	c.Limits = c.Limits.withDefaults()
	return c
}

// deps are what every service uses.
type deps struct {
	store ports.Database
	blobs ports.BlobStore
	clock ports.Clock
	ids   ports.IDSource
	sched ports.Scheduler
	cfg   Config
	// content renders card text for every place that shows it.
	content *content.Renderer
	days    *dayCache // the accounts' learner's days, for the daily quota
}

// now returns the clock's time in UTC at millisecond precision, the
// precision the stores keep.
func (d *deps) now() time.Time { return d.clock.Now().UTC().Truncate(time.Millisecond) }

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
	Purge       *PurgeService
}

// NewServices builds every service. blobs may be nil when media uploads
// are not served (AcceptUpload then fails as unavailable).
func NewServices(store ports.Database, blobs ports.BlobStore, clock ports.Clock, ids ports.IDSource, sched ports.Scheduler, cfg Config) *Services {
	d := &deps{store: store, blobs: blobs, clock: clock, ids: ids, sched: sched, cfg: cfg.withDefaults(), content: content.New(), days: &dayCache{}}
	return &Services{
		Decks:       &DeckService{d},
		Cards:       &CardService{d},
		Notes:       &NoteService{d},
		Study:       &StudyService{d},
		Stats:       &StatsService{d},
		Media:       &MediaService{d},
		Accounts:    &AccountService{d},
		Keys:        &KeyService{d},
		WebSessions: &WebSessionService{d},
		Exposure:    &ExposureService{d},
		Audit:       &AuditService{d},
		Settings:    &SettingsService{d},
		AccountData: &AccountDataService{d},
		Purge:       &PurgeService{d},
	}
}
