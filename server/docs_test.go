package server_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/server"
	"github.com/airlockrt/airlock/server/console"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/session"
)

// reasons are every error reason the server answers with.
var reasons = []string{
	server.ReasonMalformedJSON, server.ReasonUnknownField, server.ReasonInvalidRequest,
	server.ReasonInvalidLanguage, server.ReasonInvalidScript, server.ReasonInvalidModule,
	server.ReasonUnknownTools, server.ReasonInvalidPolicy, server.ReasonAboveLimit,
	server.ReasonUnauthenticated, server.ReasonTenantMismatch, server.ReasonNotFound,
	server.ReasonChainNotFound, server.ReasonApprovalNotFound, server.ReasonArtifactNotFound,
	server.ReasonMethodNotAllowed, server.ReasonChainFinished, server.ReasonAlreadyDecided,
	server.ReasonArgsMismatch, server.ReasonApprovalExpired, server.ReasonBodyTooLarge, server.ReasonBodyTimeout,
	server.ReasonUnsupportedMediaType, server.ReasonTooManyChains, server.ReasonInternal,
	server.ReasonShuttingDown, server.ReasonForbiddenHost, server.ReasonForbiddenOrigin, server.ReasonForbiddenRole,
	server.ReasonStoreUnavailable, server.ReasonRunningElsewhere, server.ReasonTooManyStreams,
	console.ReasonCSRF, console.ReasonTooManySignIns, console.ReasonTooManySessions,
	server.ReasonInvalidCallerTools, server.ReasonCallNotFound, server.ReasonAlreadyAnswered, server.ReasonCallExpired,
	server.ReasonResultTooLarge, server.ReasonOutputSchemaMismatch, server.ReasonChainParked,
}

// routes are the server's routes, as "METHOD path".
var routes = []string{
	"post /v1/chains", "get /v1/chains", "get /v1/chains/{id}", "delete /v1/chains/{id}", "get /v1/chains/{id}/events",
	"get /v1/approvals", "get /v1/approvals/{id}", "get /v1/approvals/{id}/context", "post /v1/approvals/{id}", "get /v1/artifacts/{ref}",
	"get /v1/tools", "get /v1/tools.d.ts", "get /healthz", "get /readyz", "get /metrics",
	"post /mcp", "get /mcp", "delete /mcp", "get /ui/session", "post /ui/session", "delete /ui/session",
	"get /v1/calls", "get /v1/calls/{id}", "post /v1/calls/{id}", "get /v1/chains/{id}/calls", "post /v1/tools.d.ts",
	"post /v1/chains/{id}/identity",
}

// TestDocsCoverTheAPI keeps docs/openapi.yaml and docs/http-api.md in step
// with the code: every route and every reason code is documented.
func TestDocsCoverTheAPI(t *testing.T) {
	b, err := os.ReadFile("../docs/openapi.yaml")
	require.NoError(t, err)
	var spec struct {
		Paths      map[string]map[string]any
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Properties map[string]struct{ Enum []string }
				}
			}
		}
	}
	require.NoError(t, yaml.Unmarshal(b, &spec))
	var documented []string
	for path, ops := range spec.Paths {
		for method := range ops {
			if method != "parameters" && method != "description" {
				documented = append(documented, method+" "+path)
			}
		}
	}
	slices.Sort(documented)
	want := slices.Clone(routes)
	slices.Sort(want)
	require.Equal(t, want, documented)

	enum := spec.Components.Schemas["Error"].Properties["error"].Properties["reason"].Enum
	require.ElementsMatch(t, reasons, enum)

	md, err := os.ReadFile("../docs/http-api.md")
	require.NoError(t, err)
	for _, r := range reasons {
		require.Contains(t, string(md), "`"+r+"`", "http-api.md documents %s", r)
	}
	for _, r := range routes {
		method, path, _ := strings.Cut(r, " ")
		require.Contains(t, string(md), strings.ToUpper(method)+" "+path, "http-api.md documents %s", r)
	}
	var trace struct {
		Components struct {
			Schemas struct {
				TraceRecord struct {
					Properties struct {
						Reason struct{ Enum []string }
					}
				} `yaml:"TraceRecord"`
			}
		}
	}
	require.NoError(t, yaml.Unmarshal(b, &trace))
	require.Equal(t, invoker.Reasons(), trace.Components.Schemas.TraceRecord.Properties.Reason.Enum,
		"docs/openapi.yaml lists the invoker's reason codes in the order of invoker.Reasons()")
	// Chain statuses come from one list, chain.Statuses: a chain's view
	// has them all, a RunResult those a stretch ends with.
	var status struct {
		Components struct {
			Schemas map[string]struct {
				Properties struct {
					Status struct{ Enum []string }
				}
			}
		}
	}
	require.NoError(t, yaml.Unmarshal(b, &status))
	var all, ended []string
	for _, st := range chain.Statuses() {
		all = append(all, string(st))
		if st.Final() || st == chain.StatusParked {
			ended = append(ended, string(st))
		}
	}
	require.ElementsMatch(t, all, status.Components.Schemas["Chain"].Properties.Status.Enum)
	require.ElementsMatch(t, ended, status.Components.Schemas["RunResult"].Properties.Status.Enum)
	for _, st := range all {
		require.Contains(t, string(md), "`"+st+"`", "http-api.md documents status %s", st)
	}
	for _, ev := range []string{server.EventToolCall, server.EventToolResult, server.EventApprovalRequired, server.EventLog, server.EventDone, server.EventStatus} {
		require.Contains(t, string(md), "`"+ev+"`")
	}
	testDocsVocabularies(t, b, string(md))
}

// testDocsVocabularies checks the enums of openapi.yaml against the Go
// lists they come from: a call's statuses (session.RecordStatuses) and
// reasons (invoker.Reasons) wherever an event or record has them, the
// lifecycle events' names and approval outcomes, and a chain's reasons.
func testDocsVocabularies(t *testing.T, spec []byte, md string) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct{ Enum []string }
			}
		}
	}
	require.NoError(t, yaml.Unmarshal(spec, &doc))
	enum := func(schema, prop string) []string {
		s, ok := doc.Components.Schemas[schema]
		require.True(t, ok, "openapi.yaml has schema %s", schema)
		return s.Properties[prop].Enum
	}
	var statuses []string
	for _, st := range session.RecordStatuses() {
		statuses = append(statuses, string(st))
		require.Contains(t, md, "`"+string(st)+"`")
	}
	for _, schema := range []string{"TraceRecord", "ToolResultEvent", "LifecycleEvent"} {
		require.Equal(t, statuses, enum(schema, "status"), "%s.status is session.RecordStatuses()", schema)
		require.Equal(t, invoker.Reasons(), enum(schema, "reason"), "%s.reason is invoker.Reasons()", schema)
	}
	// The lifecycle events the stream carries: every kind but tool.call
	// and tool.result, which are tool_call and tool_result.
	var kinds []string
	for k := invoker.ToolStart; k <= invoker.ApprovalParked; k++ {
		if k != invoker.ToolCall && k != invoker.ToolResult {
			kinds = append(kinds, k.Name())
			require.Contains(t, md, "`"+k.Name()+"`")
		}
	}
	require.ElementsMatch(t, kinds, enum("LifecycleEvent", "event"))
	require.ElementsMatch(t, []string{invoker.ApprovalApproved, invoker.ApprovalDenied, invoker.ApprovalTimeout,
		invoker.ApprovalNoHandler, invoker.ApprovalFailed, invoker.ApprovalCancelled, invoker.ApprovalPending,
		invoker.ApprovalExpired}, enum("LifecycleEvent", "approval"))
	// A chain's reasons: how the sandbox ended it, the limit it crossed,
	// and the fleet's.
	chainReasons := []string{sandbox.LimitMemory, sandbox.LimitLogs, sandbox.LimitResult, sandbox.LimitArgs,
		sandbox.LimitStack, sandbox.LimitInFlight, chain.ReasonAwaitingApproval, durable.ReasonProcessLost,
		service.ReasonStateRefused, service.ReasonWakes, service.ReasonParkBytes, service.ReasonParkedChains, service.ReasonTenantQuota}
	for k := sandbox.ScriptError; k <= sandbox.HostError; k++ {
		if k != sandbox.LimitExceeded {
			chainReasons = append(chainReasons, k.String())
		}
	}
	require.ElementsMatch(t, chainReasons, enum("RunResult", "reason"))
	for _, r := range chainReasons {
		require.Contains(t, md, "`"+r+"`", "http-api.md documents chain reason %s", r)
	}
}
