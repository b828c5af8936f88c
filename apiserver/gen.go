package apiserver

// wire_gen.go is generated from wire.go. The directive lives here because
// go generate skips files with the wireinject build tag.

//go:generate go tool wire
