package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/internal/oidctest"
	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// TestSubmitIdentity: a submission's identity reaches the chain's tool
// calls (toolbox.IdentityFrom) and nothing the service shows or emits;
// a malformed or oversized one is refused invalid_request without its
// value in the message.
func TestSubmitIdentity(t *testing.T) {
	const token = "user-token-SECRET-0123456789abcdef"
	type seen struct {
		Has   bool   `json:"has"`
		Match bool   `json:"match"`
		Type  string `json:"type"`
		Actor bool   `json:"actor"`
	}
	whoami := toolbox.Func("whoami", "the chain's identity, as a tool sees it", func(ctx context.Context, _ struct{}) (seen, error) {
		id, ok := toolbox.IdentityFrom(ctx)
		if !ok {
			return seen{}, nil
		}
		return seen{Has: true, Match: id.SubjectToken == token, Type: id.TokenType(), Actor: id.Actor == "agent-token-0123456789"}, nil
	})
	box, err := toolbox.New(whoami)
	require.NoError(t, err)
	store := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	inv, err := invoker.New(box, invoker.Options{Store: store})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	svc, err := service.New(runner, service.Options{MaxRequestBytes: 64 << 10,
		Keys: func(key string) (service.Caller, bool) { return service.Caller{Tenant: "acme"}, key == keyAcme }})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Close(ctx)
	})
	acme, _ := svc.CallerOf(keyAcme)

	var events []string
	view, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: `return await tools.whoami({})`,
		Identity: &service.SubmitIdentity{SubjectToken: token, SubjectTokenType: "jwt", Actor: "agent-token-0123456789"}},
		service.SubmitOptions{Watch: func(ev service.Event) {
			b, _ := json.Marshal(ev)
			events = append(events, string(b))
		}})
	require.NoError(t, err)
	require.Equal(t, "ok", view.Status, "%+v", view)
	require.JSONEq(t, `{"has":true,"match":true,"type":"urn:ietf:params:oauth:token-type:jwt","actor":true}`, string(view.Result.Value))
	b, _ := json.Marshal(view)
	require.NotContains(t, string(b), "SECRET")
	require.NotContains(t, strings.Join(events, "\n"), "SECRET")
	require.NotContains(t, fmt.Sprintf("%v %+v %#v", service.SubmitIdentity{SubjectToken: token}, &service.SubmitIdentity{SubjectToken: token}, service.SubmitIdentity{SubjectToken: token}), "SECRET")
	require.NotContains(t, fmt.Sprintf("%v %+v %#v", toolbox.Identity{SubjectToken: token}, &toolbox.Identity{SubjectToken: token}, toolbox.Identity{SubjectToken: token}), "SECRET")
	js, _ := json.Marshal(struct{ ID toolbox.Identity }{toolbox.Identity{SubjectToken: token}})
	require.NotContains(t, string(js), "SECRET")
	js, _ = json.Marshal(service.SubmitRequest{Script: "return 1", Identity: &service.SubmitIdentity{SubjectToken: token, Actor: token}})
	require.JSONEq(t, `{"script":"return 1","identity":"[REDACTED]"}`, string(js))
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("submitted", "identity", service.SubmitIdentity{SubjectToken: token}, "req", service.SubmitRequest{Identity: &service.SubmitIdentity{SubjectToken: token}})
	require.NotContains(t, logged.String(), "SECRET")

	view, err = svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: `return await tools.whoami({})`}, service.SubmitOptions{})
	require.NoError(t, err)
	require.JSONEq(t, `{"has":false,"match":false,"type":"","actor":false}`, string(view.Result.Value), "no identity, none seen")

	for _, c := range []struct {
		name string
		id   service.SubmitIdentity
		msg  string
	}{
		{"empty", service.SubmitIdentity{}, "identity.subject_token is required: the token of the user the chain acts for"},
		{"too large", service.SubmitIdentity{SubjectToken: "SECRET" + strings.Repeat("x", service.MaxSubjectTokenBytes)},
			fmt.Sprintf("identity.subject_token is %d bytes, above the 8192 bytes a token may have", service.MaxSubjectTokenBytes+6)},
		{"at the bound", service.SubmitIdentity{SubjectToken: strings.Repeat("x", service.MaxSubjectTokenBytes), SubjectTokenType: "bogus"},
			`identity.subject_token_type "bogus" is not access_token, id_token, jwt or refresh_token`},
		{"line break", service.SubmitIdentity{SubjectToken: "SECRET\r\nX: y"}, "identity.subject_token holds a byte that is not printable ASCII (position 6); send the token as issued"},
		{"actor too large", service.SubmitIdentity{SubjectToken: "t", Actor: strings.Repeat("x", service.MaxSubjectTokenBytes+1)},
			"identity.actor is 8193 bytes, above the 8192 bytes a token may have"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: "return 1", Identity: &c.id}, service.SubmitOptions{})
			var se *service.SubmitError
			require.True(t, errors.As(err, &se), "%v", err)
			require.Equal(t, service.ReasonInvalidRequest, se.Reason)
			require.Equal(t, c.msg, se.Message)
			require.NotContains(t, se.Message, "SECRET")
		})
	}
}

// TestCredentialRefresh: against a real token service, a chain whose
// subject token expired gets credential_expired on its HTTP tool's call and
// a credential_required event naming the audience; SetIdentity hands the
// running chain a fresh token and its retry acts for it. A chain without
// an identity gets credential_unavailable and the same event. Another
// tenant's key cannot set the chain's identity; a malformed one is refused;
// a finished chain answers ErrFinished. No token reaches a view or event.
func TestCredentialRefresh(t *testing.T) {
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}}})
	crm := op.Upstream(t, "crm", nil)
	ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: op.TokenURL, ClientID: op.ClientID, ClientSecret: op.ClientSecret})
	require.NoError(t, err)
	tool, err := httptool.New(httptool.Spec{Name: "crm", Description: "the CRM", URL: crm.URL, Method: "GET", Audience: "crm"},
		httptool.Options{Exchanger: ex})
	require.NoError(t, err)
	box, err := toolbox.New(tool)
	require.NoError(t, err)
	store := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	inv, err := invoker.New(box, invoker.Options{Store: store})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	svc, err := service.New(runner, service.Options{MaxRequestBytes: 64 << 10,
		Keys: func(key string) (service.Caller, bool) {
			switch key {
			case keyAcme:
				return service.Caller{Tenant: "acme"}, true
			case "globex-key-0123456789abcdef":
				return service.Caller{Tenant: "globex"}, true
			}
			return service.Caller{}, false
		}})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Close(ctx)
	})
	acme, _ := svc.CallerOf(keyAcme)
	const retry = `
for (let i = 0; i < 100; i++) {
  try { return await tools.crm({}); }
  catch (e) {
    if (e.reason !== "credential_expired" && e.reason !== "credential_unavailable") throw e;
    await new Promise(r => setTimeout(r, 50));
  }
}
throw new Error("no fresh credential came");`

	for _, c := range []struct {
		name   string
		id     *service.SubmitIdentity
		reason string
	}{
		{"expired", &service.SubmitIdentity{SubjectToken: op.Subject("alice", -time.Minute)}, invoker.ReasonCredentialExpired},
		{"none", nil, invoker.ReasonCredentialUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			fresh := op.Subject("alice", time.Hour)
			events := make(chan string, 256)
			view, err := svc.Submit(context.Background(), acme, &service.SubmitRequest{Script: retry, Identity: c.id},
				service.SubmitOptions{Detach: true, Watch: func(ev service.Event) {
					b, _ := json.Marshal(ev)
					select {
					case events <- ev.Name + " " + string(b):
					default:
					}
				}})
			require.NoError(t, err)
			var seen []string
			for ev := range events {
				seen = append(seen, ev)
				if strings.HasPrefix(ev, service.EventCredentialRequired+" ") {
					require.Contains(t, ev, fmt.Sprintf(`"tool":"crm","audience":"crm","reason":%q`, c.reason))
					break
				}
			}
			globex, _ := svc.CallerOf("globex-key-0123456789abcdef")
			require.ErrorIs(t, svc.SetIdentity(context.Background(), globex.Tenant, view.ID, &service.SubmitIdentity{SubjectToken: fresh}), service.ErrNotFound)
			err = svc.SetIdentity(context.Background(), "acme", view.ID, &service.SubmitIdentity{SubjectToken: "bad token"})
			var se *service.SubmitError
			require.True(t, errors.As(err, &se), "%v", err)
			require.Equal(t, service.ReasonInvalidRequest, se.Reason)
			require.NoError(t, svc.SetIdentity(context.Background(), "acme", view.ID, &service.SubmitIdentity{SubjectToken: fresh}))
			require.Eventually(t, func() bool {
				v, err := svc.Chain(context.Background(), "acme", view.ID)
				return err == nil && v.Status != "running"
			}, 20*time.Second, 20*time.Millisecond)
			v, err := svc.Chain(context.Background(), "acme", view.ID)
			require.NoError(t, err)
			require.Equal(t, "ok", v.Status, "%+v", v.Result)
			require.JSONEq(t, `{"subject":"alice","audience":"crm"}`, string(v.Result.Value))
			require.Equal(t, c.reason, v.Result.Trace[0].Reason)
			b, _ := json.Marshal(v)
			require.NotContains(t, string(b), fresh)
			if c.id != nil {
				require.NotContains(t, string(b), c.id.SubjectToken)
			}
			for _, ev := range seen {
				require.NotContains(t, ev, fresh)
			}
			require.ErrorIs(t, svc.SetIdentity(context.Background(), "acme", view.ID, &service.SubmitIdentity{SubjectToken: fresh}), service.ErrFinished)
		})
	}
}
