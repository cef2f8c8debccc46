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
// Header values may hold ${env:NAME} references. They are resolved through
// Options.Secrets (a toolbox.Secrets given at construction; EnvSecrets over
// Options.LookupEnv or os.LookupEnv when nil) at call time, on every call and
// never at construction, and are never stored, logged or traced. They may
// also hold ${tenant:NAME} references, resolved the same way through
// Options.TenantSecrets for the tenant of the call's toolbox.Caller, so one
// tool sends each tenant's own credential (docs/identity.md). A missing
// secret fails the call with a *toolbox.CredentialUnavailableError (reason
// credential_unavailable) that names the reference, never a value; the
// arguments cannot name a secret, since only the configuration's headers
// are resolved. Every value read
// from the environment, and the value of every header other than the few
// that never carry secrets (PublicHeader: Accept, Content-Type,
// User-Agent…), literal text included, is a secret: an upstream that echoes
// "Authorization: Bearer sk-…" does not leak the key, whether it was
// written in the configuration or read from the environment. So is each
// word of such a header's literal text that is not a scheme such as Bearer.
// Prefer ${env:NAME} for secrets all the same: a literal one lives in the
// configuration file.
//
// # Secrets in responses
//
// An upstream may reflect a secret literally or in a form that hides it
// from a literal search. The tool recognises, in the response body, in the
// error texts it builds and in the Content-Type header (the one response
// header that reaches the chain):
//
//   - the literal value, in any letter case;
//   - the value JSON-escaped (\uXXXX, \/, \"…) or percent-encoded (%XX),
//     wholly or in part, with hex digits in any case; escapes are decoded
//     once, so a doubly escaped value is not recognised;
//   - its hex encoding, in either case;
//   - its base64 encoding, standard or URL alphabet, padded or raw, alone
//     or inside a longer base64 text such as a Basic credential (values of
//     at least MinEncodedSecretBytes);
//   - any FragmentBytes consecutive bytes of a longer value, in any of the
//     forms above: a truncated prefix, a suffix, a middle part.
//
// What the tool does depends on where the secret appears, choosing the
// safer answer for each:
//
//   - in a JSON or text body, and in an error text: every matching part is
//     replaced by [REDACTED] and the rest is returned. The output no longer
//     holds the secret in any recognised form, and the call stays useful.
//     A JSON body that scrubbing would make invalid (the secret is also
//     JSON syntax, such as a header value "true") is withheld: the call
//     fails.
//   - in a media body (an image, a PDF…): the call fails. A file cannot be
//     scrubbed without handing the chain a silently corrupted one.
//   - in the Content-Type header: the call fails. It would reach the chain
//     as the result's media type, and a scrubbed media type is no media
//     type.
//
// A value shorter than MinSecretBytes is not scrubbed at all: it cannot be
// told apart from ordinary text, and scrubbing it would mangle responses.
// A value shorter than MinEncodedSecretBytes is not recognised in base64,
// and one of at most FragmentBytes only whole. Give real secrets at least
// 16 bytes, and do not put values that responses legitimately contain in
// secret headers. Matching is linear in the response size: one decoding
// pass and one rolling-hash pass per window length.
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
// answers, timeouts, oversize or malformed responses, a response withheld
// because it reflects a secret) become tool_error results; a secret that
// cannot be had is a *toolbox.CredentialUnavailableError, a
// credential_unavailable result. They name the tool and never contain a
// secret in a form listed above.
package httptool
