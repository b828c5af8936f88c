package mcpcore

// Hooks for the external tests of the schema fast path.

// CompiledSchema is a compiled schema for the differential tests.
type CompiledSchema struct{ sc *schema }

// CompileForTest compiles schemaJSON as NewServer does.
func CompileForTest(schemaJSON []byte) (*CompiledSchema, error) {
	sc, err := compileSchema("mcp:///test.json", schemaJSON)
	if err != nil {
		return nil, err
	}
	return &CompiledSchema{sc}, nil
}

// HasFast reports whether the schema has a fast path.
func (c *CompiledSchema) HasFast() bool { return c.sc.fast != nil }

// Fast returns the fast verdict on doc (well-formed JSON): "valid",
// "invalid" or "unknown".
func (c *CompiledSchema) Fast(doc []byte) string {
	return [...]string{vInvalid: "invalid", vValid: "valid", vUnknown: "unknown"}[c.sc.fast.check(doc)]
}

// Full returns the full validator's violations (nil when valid).
func (c *CompiledSchema) Full(doc []byte) []string { return c.sc.fullViolations(doc) }

// Violations is what a served call reports for doc.
func (c *CompiledSchema) Violations(doc []byte) []string { return c.sc.argViolations(doc) }
