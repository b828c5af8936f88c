module github.com/takhtabush/takhtabush/mcpcore

go 1.26.0

require (
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/takhtabush/takhtabush/contracts v0.0.0-00010101000000-000000000000
	github.com/takhtabush/takhtabush/ports v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
	go.uber.org/mock v0.6.0
	golang.org/x/text v0.43.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace (
	github.com/takhtabush/takhtabush/contracts => ../contracts
	github.com/takhtabush/takhtabush/ports => ../ports
)
