// Package domain_test runs the domain services end to end on the real
// stores: SQLite always, Postgres when TAKHTABUSH_TEST_POSTGRES_URL is set.
// It lives in the apiserver module, which already joins the domain to the
// adapters, so that domain/go.mod never requires the adapters (the domain's
// own module keeps its pure tests and its dependency rules).
package domain_test
