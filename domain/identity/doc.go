// Package identity owns who a caller is and what they allowed: accounts,
// API keys, sign-in links and web sessions, OAuth (clients, grants,
// tokens, client documents), the tool exposure an account chose, its audit
// trail listing and its settings (time zone, learner's day, limits).
//
// It may use the kernel, contracts, ports and the pure packages. It must
// not import another room (library, study, exchange, background) nor the
// root package domain; rooms that need a principal get it from the
// context through the kernel, not from here.
package identity
