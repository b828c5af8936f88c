// Package obs is the apiserver's observability: request ids, the
// per-request state that logging and metrics read (user, credential, tool),
// structured access logs that never carry a secret, and the Prometheus
// metrics with bounded labels.
package obs
