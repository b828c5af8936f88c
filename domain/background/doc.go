// Package background owns the work that runs outside a request: the
// long-job queue (JobService, its runners and leases) and the purge of
// expired rows.
//
// It may use the kernel, contracts and ports. It must not import another
// room nor the root package domain; the rooms reach it only through the
// kernel's job contract (kernel.Jobs), which JobService implements, and
// the composition (domain.NewServices) wires it in.
package background
