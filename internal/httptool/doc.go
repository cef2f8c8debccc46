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
// environment at call time, never stored, logged or traced, and the resolved
// values are scrubbed from every error message and response body the tool
// hands back.
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
