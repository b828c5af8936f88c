package domain

import "github.com/takhtabush/takhtabush/domain/internal/kernel"

// What the composition's callers need to build the services, from the
// rooms' shared kernel (which is internal to the domain module).

// Config holds the domain's settings; zero fields take the defaults named
// on each field (see the Default constants).
type Config = kernel.Config

// Limits are the per-account daily write quota and caps (Config.Limits).
type Limits = kernel.Limits

// JobHandler runs one job of a kind (see background.JobService.Register).
type JobHandler = kernel.JobHandler

// JobRun is one execution of a job, as its handler sees it.
type JobRun = kernel.JobRun

// The defaults Config's zero fields take.
const (
	DefaultLoginLinkTTL     = kernel.DefaultLoginLinkTTL
	DefaultWebSessionTTL    = kernel.DefaultWebSessionTTL
	DefaultKeyTouchInterval = kernel.DefaultKeyTouchInterval
	DefaultSignedMediaTTL   = kernel.DefaultSignedMediaTTL
	DefaultMediaQuotaBytes  = kernel.DefaultMediaQuotaBytes
	DefaultMaxOpenUploads   = kernel.DefaultMaxOpenUploads
	DefaultMediaGrace       = kernel.DefaultMediaGrace
	DefaultDailyWrites      = kernel.DefaultDailyWrites
	DefaultMaxCards         = kernel.DefaultMaxCards
	DefaultMaxDecks         = kernel.DefaultMaxDecks
	DefaultMaxKeys          = kernel.DefaultMaxKeys
)
