// Package stats owns what an account's study history and schedule say
// about it: statistics (get_stats, the card distribution), plans and the
// due forecast (get_study_plan), the workload simulation with its caches,
// and the desired-retention advisor, all read-only.
//
// It may use study (what sessions would serve today, the load balancing
// of intervals), the library, the kernel, contracts, ports and the pure
// packages. It must not import exchange, identity or background, nor the
// root package domain; nothing but the composition imports it.
package stats
