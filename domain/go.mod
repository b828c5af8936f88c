module github.com/takhtabush/takhtabush/domain

go 1.26.0

replace (
	github.com/takhtabush/takhtabush/contracts => ../contracts
	github.com/takhtabush/takhtabush/ports => ../ports
)

require (
	github.com/gorilla/css v1.0.1
	github.com/microcosm-cc/bluemonday v1.0.27
	github.com/open-spaced-repetition/go-fsrs/v4 v4.0.0
	github.com/takhtabush/takhtabush/contracts v0.0.0-00010101000000-000000000000
	github.com/takhtabush/takhtabush/ports v0.0.0-00010101000000-000000000000
	github.com/yuin/goldmark v1.8.7
	golang.org/x/net v0.62.0
	pgregory.net/rapid v1.3.0
)

require github.com/aymerick/douceur v0.2.0 // indirect
