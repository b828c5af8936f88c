// Package library owns what a learner keeps: decks and their presets,
// cards and notes (adding, editing, searching, text import and its
// preview), note types and their styles, media (uploads, signed links,
// the collector) and the trash. It also queues the optimiser's job
// (OptimizeParameters) through the kernel's job contract.
//
// It may use the kernel, contracts, ports and the pure packages (notes,
// cardtext, content, textrule, fsrs). It must not import study, exchange,
// identity or background, nor the root package domain: the rooms that
// build on the library (study, exchange) import it, never the reverse.
package library
