module github.com/takhtabush/takhtabush/domain

go 1.26.0

replace (
	github.com/takhtabush/takhtabush/adapters => ../adapters
	github.com/takhtabush/takhtabush/contracts => ../contracts
	github.com/takhtabush/takhtabush/ports => ../ports
)

require (
	github.com/microcosm-cc/bluemonday v1.0.27
	github.com/open-spaced-repetition/go-fsrs/v4 v4.0.0
	github.com/takhtabush/takhtabush/adapters v0.0.0-00010101000000-000000000000
	github.com/takhtabush/takhtabush/contracts v0.0.0-00010101000000-000000000000
	github.com/takhtabush/takhtabush/ports v0.0.0-00010101000000-000000000000
	github.com/yuin/goldmark v1.8.7
	golang.org/x/net v0.62.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/aymerick/douceur v0.2.0 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/gorilla/css v1.0.1 // indirect
	github.com/lib/pq v1.12.3 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/mfridman/interpolate v0.0.2 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/pressly/goose/v3 v3.29.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	github.com/sethvargo/go-retry v0.5.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	modernc.org/libc v1.80.1 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
	modernc.org/sqlite v1.62.0 // indirect
)
