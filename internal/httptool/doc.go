// Package httptool builds a toolbox.Tool from configuration: each call is an
// HTTP request from the host to a fixed URL, so tool authors who do not write
// Go can register tools by running an HTTP endpoint.
//
//	tool, err := httptool.New(httptool.Spec{
//		Name: "weather", Description: "Current weather of a city",
//		URL: "https://api.example.com/v1/weather/{city}", Method: "GET",
//		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
//		Headers: map[string]string{"Authorization": "Bearer ${env:WEATHER_TOKEN}"},
//	}, httptool.Options{})
//	box.Add(tool)
//
// The arguments fill the URL's {name} placeholders (path-escaped) and the
// rest travel as a JSON body (POST, PUT, PATCH) or as query parameters (GET,
// HEAD, DELETE). A 2xx JSON response is the result; a text response becomes
// a JSON string; any other media type becomes a media file. Redirects are not
// followed. Every call is bounded by Spec.Timeout and its response by
// Spec.MaxResponseBytes.
//
// Header values may hold ${env:NAME} references. They are resolved from the
// environment at call time, never stored, logged or traced. Every value read
// from the environment, and the value of every header other than the few
// that never carry secrets (PublicHeader: Accept, Content-Type,
// User-Agent…), literal text included, is scrubbed from every error
// message and response body the tool hands back: an upstream that echoes
// "Authorization: Bearer sk-…" does not leak the key, whether it was
// written in the configuration or read from the environment. (Scrubbing
// replaces the value, and each word of it that is not a scheme such as
// Bearer, by [REDACTED] wherever it appears, so do not put values that
// responses legitimately contain in such headers.) Prefer ${env:NAME} for
// secrets all the same: a literal one lives in the configuration file.
//
// A {name} placeholder must not receive an empty, "." or ".." value: the
// call fails instead of building a URL that climbs the path.
//
// # Concurrency
//
// A Tool is immutable and safe for concurrent use.
//
// # Errors
//
// New wraps ErrInvalidSpec with what is wrong. Call's errors (non-2xx
// answers, timeouts, oversize or malformed responses, a missing environment
// variable) become tool_error results; they name the tool and never contain
// a secret.
package httptool
