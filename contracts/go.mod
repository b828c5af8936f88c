module github.com/takhtabush/takhtabush/contracts

go 1.26.0
