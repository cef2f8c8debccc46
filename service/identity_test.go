package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
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
