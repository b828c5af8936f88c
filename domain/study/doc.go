// Package study owns studying: sessions and their queues, reviews, the
// rating previews and the study page's undo of the last rating,
// rescheduling, statistics, plans and the workload forecast (the simulation and its caches), and the optimiser's
// job that fits a preset's FSRS weights.
//
// It may use the library (decks, presets, note styles, signed media),
// the kernel, contracts, ports and the pure packages (fsrs, fsrsopt, …).
// It must not import exchange, identity or background, nor the root
// package domain; jobs go through the kernel's job contract.
package study
