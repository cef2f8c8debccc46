// Package config loads airlock's YAML configuration into values: the chain
// policy, per-tool risk overrides, the approval mode, the blob store, sandbox
// limits, HTTP tools, the server and tracing. It is a pure loader: the
// policy and limits sections are handed as text to their owners
// (invoker.Policy, sandbox.Limits), and internal/assemble builds the tools,
// store and engines from what it loaded.
//
//	cfg, err := config.Load(config.Sources{
//		File:  "airlock.yaml",
//		Flags: []config.Flag{{Name: "timeout", Key: "limits.timeout", Value: "30s"}},
//		Env:   os.Environ(),
//	})
//	if err != nil { … } // e.g. "airlock.yaml:7: policy.call_timeout: "30x" is not a duration (…)"
//	p, err := assemble.Build(ctx, cfg, assemble.Options{}) // the process from it
//	cfg.Print(os.Stdout) // secrets redacted
//
// docs/config.md lists every key with its default, bounds and variable
// (generated from the setting tables; TestConfigDoc keeps it in step). A
// file looks like this (every key is optional; durations read "30s",
// sizes "64MiB"):
//
//	policy:
//	  max_tool_calls: 20
//	  call_timeout: 30s
//	  approval_timeout: 25s
//	  max_risk_unapproved: SAFE
//	tools:
//	  builtin: [demo]
//	  risk: {send_message: CRITICAL}
//	  http:
//	    - name: forecast
//	      description: Weather forecast of a city
//	      url: https://api.example.com/v1/forecast/{city}
//	      method: GET
//	      input_schema: {type: object, properties: {city: {type: string}}, required: [city]}
//	      headers: {Authorization: "Bearer ${env:WEATHER_TOKEN}"}
//	mcp_servers: # docs/mcp.md; tools arrive as NAME_tool
//	  - name: github
//	    command: npx
//	    args: [-y, "@modelcontextprotocol/server-github"]
//	    env: {GITHUB_PERSONAL_ACCESS_TOKEN: "${env:GITHUB_TOKEN}"}
//	    risk: {create_issue: HIGH}
//	    per_tenant: true
//	  - name: docs
//	    url: https://mcp.example.com/mcp
//	    headers: {Authorization: "Bearer ${env:DOCS_TOKEN}"}
//	approval: {mode: ask}
//	store: {kind: fs}
//	limits: {timeout: 60s, memory: 64MiB}
//	server:
//	  addr: 127.0.0.1:8080
//	  api_keys:
//	    - {key: "${env:ACME_AGENT_KEY}", tenant: acme, role: submit}
//	    - {key: "${env:ACME_APPROVER_KEY}", tenant: acme, role: approver}
//
// An API key's role is all (the default), submit (submit and cancel chains,
// not decide approvals) or approver (decide approvals, not submit chains):
// give an agent loop a submit key so that it cannot approve its own calls.
//
// Layers apply in rising precedence: defaults, the file, flags, then the
// environment (AIRLOCK_ + the key upper-cased, dots as underscores, e.g.
// AIRLOCK_LIMITS_MEMORY; the AIRLOCK_S3_* variables of s3blob also set
// store.s3). Unknown keys, duplicate keys and invalid values are rejected,
// each with where it was set ("file:line", "flag --name", "env NAME") and
// why; all problems of a load are reported together, in line order
// (Sources.Check adds those only the built tools show). The environment form of
// server.api_keys is "tenant:key[:role],…"; any other shape is refused.
//
// Secrets (API keys, the S3 secret key) are of type Secret, which never
// prints; HTTP tool header values are resolved from the environment only at
// call time, and the values of headers other than public ones (Accept,
// User-Agent…) are scrubbed from the tool's responses and errors.
//
// # Concurrency
//
// Load, Parse and Default return a fresh Config owned by the caller. A
// Config is not safe for concurrent mutation; once loaded, reading it from
// many goroutines is safe.
//
// # Errors
//
// Every rejected value is an *Error (Pos, Key, Reason) wrapping ErrInvalid;
// Load joins them with errors.Join. A file that cannot be read is reported
// with the os error.
package config
