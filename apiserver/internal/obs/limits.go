package obs

import "github.com/prometheus/client_golang/prometheus"

// limitMetrics count the purge's work and the refusals of the limits and
// quotas. Their labels are bounded: purge jobs are registered at start,
// limits are a fixed list.
type limitMetrics struct {
	purged        *prometheus.CounterVec
	purgeFailures *prometheus.CounterVec
	refusals      *prometheus.CounterVec
}

func newLimitMetrics(reg *prometheus.Registry) limitMetrics {
	l := limitMetrics{
		purged: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "takhtabush_purged_rows_total", Help: "Expired rows deleted by the purge, by job.",
		}, []string{"job"}),
		purgeFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "takhtabush_purge_failures_total", Help: "Purge runs that failed, by job.",
		}, []string{"job"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "takhtabush_limit_refusals_total", Help: "Requests refused by a rate limit, a quota or a cap, by limit.",
		}, []string{"limit"}),
	}
	reg.MustRegister(l.purged, l.purgeFailures, l.refusals)
	return l
}

// Purged counts rows a purge job deleted.
func (m *Metrics) Purged(job string, rows int) {
	m.limits.purged.WithLabelValues(job).Add(float64(rows))
}

// PurgeFailed counts a failed purge run.
func (m *Metrics) PurgeFailed(job string) { m.limits.purgeFailures.WithLabelValues(job).Inc() }

// Refused counts a request refused by the limit named limit (one of the
// few names of the limits package).
func (m *Metrics) Refused(limit string) { m.limits.refusals.WithLabelValues(limit).Inc() }
