// Package study owns studying: sessions and their queues, reviews, the
// rating previews and the study page's undo of the last rating,
// rescheduling, the load balancing of intervals, what is left to study
// today (LeftToday), the recompute of memory states after a weight
// change, and the optimiser's job that fits a preset's FSRS weights.
// Statistics, plans and the workload simulation are the stats room's;
// undo_changes is the undo room's.
//
// It may use the library (decks, presets, note styles, signed media),
// the kernel, contracts, ports and the pure packages (fsrs, fsrsopt, …).
// It must not import exchange, identity or background, nor the root
// package domain; jobs go through the kernel's job contract.
package study
