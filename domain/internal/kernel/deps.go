package kernel

import (
	"crypto/rand"
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
	// URLKey signs short-lived download links (exports). Without it,
	// exports are off.
	URLKey []byte
	// PackageWriter writes Anki packages for exports; nil turns exports off.
	PackageWriter ports.PackageWriter
	// PackageReader reads Anki packages for import_package; nil leaves
	// only text files importable.
	PackageReader ports.PackageReader
	// KeyTouchInterval is the least time between two last-used updates of
	// one API key (default 1m).
	KeyTouchInterval time.Duration
	// MediaURLKey signs media URLs for places without the web session
	// (the MCP Apps widget). Every instance needs the same key; the
	// apiserver derives it from the server secret. Without it (tests)
	// a random key of this process is used.
	MediaURLKey []byte
	// SignedMediaTTL is how long a signed media URL works (default
	// DefaultSignedMediaTTL).
	SignedMediaTTL time.Duration
	// MediaQuotaBytes is each account's media storage (default 1 GiB):
	// its distinct uploaded files plus its open intents.
	MediaQuotaBytes int64
	// MaxOpenUploads caps an account's open upload intents (default 20).
	MaxOpenUploads int
	// MaxAttachmentBytes bounds a zip or text upload (default and at most
	// contracts.MaxAttachmentBytes).
	MaxAttachmentBytes int64
	// MediaGrace is how long an upload no card uses, and an expired
	// intent, stay before the collector deletes them (default 24h).
	MediaGrace time.Duration
	// Limits are the per-account daily write quota and caps.
	Limits Limits
}

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
	c.URLKey = append([]byte(nil), c.URLKey...)
	if len(c.MediaURLKey) == 0 {
		c.MediaURLKey = make([]byte, 32)
		_, _ = rand.Read(c.MediaURLKey)
	} else {
		c.MediaURLKey = append([]byte(nil), c.MediaURLKey...)
	}
	if c.SignedMediaTTL <= 0 {
		c.SignedMediaTTL = DefaultSignedMediaTTL
	}
	if c.MediaQuotaBytes <= 0 {
		c.MediaQuotaBytes = DefaultMediaQuotaBytes
	}
	if c.MaxOpenUploads <= 0 {
		c.MaxOpenUploads = DefaultMaxOpenUploads
	}
	if c.MaxAttachmentBytes <= 0 || c.MaxAttachmentBytes > contracts.MaxAttachmentBytes {
		c.MaxAttachmentBytes = contracts.MaxAttachmentBytes
	}
	if c.MediaGrace <= 0 {
		c.MediaGrace = DefaultMediaGrace
	}
	c.Limits = c.Limits.withDefaults()
	return c
}

// Deps are what every service uses.
type Deps struct {
	// Store is the database every service reads and writes through.
	Store ports.Database
	// Blobs holds media files; nil when uploads are not served.
	Blobs ports.BlobStore
	clock ports.Clock // read through Now
	// IDs makes new ids and secrets.
	IDs ports.IDSource
	// Sched is the FSRS scheduler.
	Sched ports.Scheduler
	// Cfg is the configuration with its defaults applied.
	Cfg Config
	// Content renders card text for every place that shows it.
	Content *content.Renderer
	Days    *dayCache // the accounts' learner's days, for the daily quota
	// Jobs queues long jobs (background.JobService in the composition).
	Jobs Jobs
}

// NewDeps gathers the services' dependencies, cfg with its defaults
// applied; the job queue is set by the composition once it exists.
func NewDeps(store ports.Database, blobs ports.BlobStore, clock ports.Clock, ids ports.IDSource, sched ports.Scheduler, cfg Config) *Deps {
	return &Deps{Store: store, Blobs: blobs, clock: clock, IDs: ids, Sched: sched, Cfg: cfg.withDefaults(), Content: content.New(), Days: &dayCache{}}
}

// Now returns the clock's time in UTC at millisecond precision, the
// precision the stores keep.
func (d *Deps) Now() time.Time { return d.clock.Now().UTC().Truncate(time.Millisecond) }

// Defaults.
const (
	DefaultLoginLinkTTL     = 15 * time.Minute
	DefaultWebSessionTTL    = 30 * 24 * time.Hour
	DefaultKeyTouchInterval = time.Minute
	DefaultSignedMediaTTL   = 15 * time.Minute
	DefaultMediaQuotaBytes  = 1 << 30
	DefaultMaxOpenUploads   = 20
	DefaultMediaGrace       = 24 * time.Hour
)
