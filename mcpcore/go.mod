module github.com/takhtabush/takhtabush/mcpcore

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/takhtabush/takhtabush/contracts v0.0.0-00010101000000-000000000000
	github.com/takhtabush/takhtabush/ports v0.0.0-00010101000000-000000000000
	go.uber.org/mock v0.6.0
	golang.org/x/text v0.43.0
)

replace (
	github.com/takhtabush/takhtabush/contracts => ../contracts
	github.com/takhtabush/takhtabush/ports => ../ports
)
