// Package exchange owns what crosses the account's border in bulk: Anki
// package import (staged, published, its job), deck export to Anki
// packages with signed download links, and the account's own data export
// and deletion.
//
// It may use the library (decks, notes, note types, media, cards'
// initial state), the kernel, contracts, ports and the pure packages. It
// must not import study, identity or background, nor the root package
// domain; its import job goes through the kernel's job contract.
package exchange
