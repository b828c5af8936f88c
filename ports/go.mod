module github.com/takhtabush/takhtabush/ports

go 1.26.0

replace github.com/takhtabush/takhtabush/contracts => ../contracts

require (
	github.com/takhtabush/takhtabush/contracts v0.0.0-00010101000000-000000000000
	go.uber.org/mock v0.6.0
)

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

tool go.uber.org/mock/mockgen
