// Package undo owns undo_changes: applying the inverses of change
// records, newest first, in short transactions, each version-checked so a
// later edit is never overwritten (skipped with a reason instead), and
// recording the undo itself so it can be undone in turn. Reviews are
// taken back from their logs (undo_review.go), merged with the records.
//
// It may use the library (ApplyPatch, UpdateDeckIn, RestoreIn, the
// presets' weights), study (SameSchedule), the kernel, contracts, ports and the pure packages;
// account settings go back through the small SettingsApplier interface
// the composition fills with identity's service. It must not import
// identity, exchange or background, nor the root package domain.
package undo
