package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/durable"
	"github.com/airlockrt/airlock/internal/httptool"
	"github.com/airlockrt/airlock/internal/oidctest"
	"github.com/airlockrt/airlock/internal/tokenexchange"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/service"
	"github.com/airlockrt/airlock/toolbox"
)

// credProc is one process of a fleet that parks, with an HTTP tool acting
// for the chain's user at a real RFC 8693 token service (crm, audience
// crm), a High-risk tool (send) and a settable clock.
type credProc struct {
	svc   *service.Service
	clock *atomic.Pointer[time.Time]
}

func newCredProc(t *testing.T, drv blobstore.Driver, node string, op *oidctest.Server, crmURL string) credProc {
	t.Helper()
	return newCredProcWith(t, drv, node, op, crmURL, nil)
}

// newCredProcWith is newCredProc with its service options changed by set.
func newCredProcWith(t *testing.T, drv blobstore.Driver, node string, op *oidctest.Server, crmURL string, set func(*service.Options)) credProc {
	t.Helper()
	bs := blobstore.New(drv, blobstore.Options{})
	fleet, err := durable.New(durable.Options{Blobs: bs, Key: faultsKey, Node: node})
	require.NoError(t, err)
	ex, err := tokenexchange.New(tokenexchange.Options{TokenURL: op.TokenURL, ClientID: op.ClientID, ClientSecret: op.ClientSecret})
	require.NoError(t, err)
	crm, err := httptool.New(httptool.Spec{Name: "crm", Description: "the CRM, as the user", URL: crmURL, Method: "GET", Audience: "crm"},
		httptool.Options{Exchanger: ex})
	require.NoError(t, err)
	note, err := httptool.New(httptool.Spec{Name: "crm_note", Description: "notes in the CRM, as the user", URL: crmURL, Method: "POST", Audience: "crm",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`)}, httptool.Options{Exchanger: ex})
	require.NoError(t, err)
	box, err := toolbox.New(crm, note, toolbox.Func("send", "Sends a message", func(_ context.Context, in struct {
		To string `json:"to"`
	}) (string, error) {
		return "sent " + in.To, nil
	}).WithRisk(toolbox.High), toolbox.Func("lookup", "Reads a customer's file", func(context.Context, struct{}) (string, error) {
		return credentialFileMarker, nil
	}))
	require.NoError(t, err)
	queue := approval.NewQueue(approval.Options{})
	inv, err := invoker.New(box, invoker.Options{Approver: queue, Store: bs})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	clock := new(atomic.Pointer[time.Time])
	opts := service.Options{Queue: queue, Fleet: fleet, Park: true, ParkTTL: time.Hour,
		Clock: func() time.Time {
			if c := clock.Load(); c != nil {
				return *c
			}
			return time.Now()
		}}
	if set != nil {
		set(&opts)
	}
	svc, err := service.New(runner, opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Close(ctx)
	})
	return credProc{svc: svc, clock: clock}
}

// TestCredentialParksAndResumesElsewhere: in a fleet that parks, a call
// whose delegated credential the token service refuses as expired parks
// its chain (kind credential, no approval, no caller call) and emits
// credential_required; a fresh token handed to another process resumes
// the chain there, acting for it, and the call runs. No token reaches the
// store. Another tenant cannot hand it one; a chain parked for an approval
// is not resumed by an identity; a chain nobody hands one before its
// deadline ends its call with the reason it parked with. A healthy chain
// of another tenant runs alongside. On memory and on MinIO.
func TestCredentialParksAndResumesElsewhere(t *testing.T) {
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}}})
	var mu sync.Mutex
	var received []string
	crm := op.Upstream(t, "crm", func(auth string) {
		mu.Lock()
		defer mu.Unlock()
		received = append(received, auth)
	})
	for name, open := range lockedDrivers(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mu.Lock()
			received = nil
			mu.Unlock()
			a, b := newCredProc(t, open(), "node-a", op, crm.URL), newCredProc(t, open(), "node-b", op, crm.URL)
			acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
			expired, fresh := op.Subject("alice", -time.Minute), op.Subject("alice", time.Hour)
			var events []string
			var evMu sync.Mutex
			v, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{
				Script:   `const c = await tools.crm({}); return c;`,
				Identity: &service.SubmitIdentity{SubjectToken: expired},
			}, service.SubmitOptions{Watch: func(ev service.Event) {
				evMu.Lock()
				defer evMu.Unlock()
				events = append(events, ev.Name+" "+string(ev.Data))
			}})
			require.NoError(t, err)
			require.Equal(t, "parked", v.Status, "%+v", v.Result)
			require.Len(t, v.Pending, 1)
			p := v.Pending[0]
			require.Equal(t, durable.KindCredential, p.Kind)
			require.Equal(t, "credential", p.Gate)
			require.Equal(t, invoker.ReasonCredentialExpired, p.Rule)
			require.Equal(t, "crm", p.Audience)
			tools := b.svc.Tools(acme)
			require.Equal(t, "crm", tools[slices.IndexFunc(tools, func(i service.ToolInfo) bool { return i.Name == "crm" })].Audience)
			require.Equal(t, durable.CredentialID(v.ID, 1), p.ID)
			evMu.Lock()
			require.Contains(t, strings.Join(events, "\n"), service.EventCredentialRequired+` {"seq":1,"tool":"crm","audience":"crm","reason":"credential_expired","parked":true}`)
			evMu.Unlock()

			// Neither an approval nor a caller's call: nothing decides it.
			apps, err := b.svc.Approvals(ctx, "acme")
			require.NoError(t, err)
			require.Empty(t, apps)
			calls, err := b.svc.Calls(ctx, "acme")
			require.NoError(t, err)
			require.Empty(t, calls)
			_, err = b.svc.Decide(ctx, "acme", p.ID, service.Decision{Approve: true, ArgsHash: strings.Repeat("0", 64)})
			require.ErrorIs(t, err, service.ErrNotFound)
			_, _, err = b.svc.AnswerCall(ctx, "acme", p.ID, service.CallAnswer{ArgsHash: strings.Repeat("0", 64), Result: json.RawMessage(`1`)})
			require.ErrorIs(t, err, service.ErrNotFound)
			_, err = b.svc.Resume(ctx, "acme", v.ID)
			require.ErrorIs(t, err, service.ErrNotResumable, "without a credential it does not resume")

			// Another tenant's key, a malformed identity: refused, nothing runs.
			require.ErrorIs(t, b.svc.SetIdentity(ctx, "globex", v.ID, &service.SubmitIdentity{SubjectToken: fresh}), service.ErrNotFound)
			var se *service.SubmitError
			require.True(t, errors.As(b.svc.SetIdentity(ctx, "acme", v.ID, &service.SubmitIdentity{SubjectToken: "bad token"}), &se))

			// Another tenant's chain runs alongside.
			g, err := a.svc.Submit(ctx, service.Caller{Tenant: "globex", Role: service.RoleAll}, &service.SubmitRequest{Script: `return 6 * 7`}, service.SubmitOptions{})
			require.NoError(t, err)
			require.Equal(t, "ok", g.Status)

			mu.Lock()
			before := len(received)
			mu.Unlock()
			require.Zero(t, before, "nothing was sent with the expired token")
			require.NoError(t, b.svc.SetIdentity(ctx, "acme", v.ID, &service.SubmitIdentity{SubjectToken: fresh}))
			var end service.ChainView
			require.Eventually(t, func() bool {
				end, err = b.svc.Chain(ctx, "acme", v.ID)
				return err == nil && end.Status != "parked" && end.Status != "running"
			}, 30*time.Second, 20*time.Millisecond)
			require.Equal(t, "ok", end.Status, "%+v", end.Result)
			require.JSONEq(t, `{"subject":"alice","audience":"crm"}`, string(end.Result.Value))
			require.Len(t, end.Result.Trace, 1, "the parked call has one record, from its run")
			require.Equal(t, "ok", string(end.Result.Trace[0].Status))
			mu.Lock()
			require.Len(t, received, 1)
			mu.Unlock()
			require.ErrorIs(t, a.svc.SetIdentity(ctx, "acme", v.ID, &service.SubmitIdentity{SubjectToken: fresh}), service.ErrFinished)

			// A chain parked for an approval is not resumed by an identity.
			w, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{Script: `return await tools.send({to: "ops"})`}, service.SubmitOptions{})
			require.NoError(t, err)
			require.Equal(t, "parked", w.Status)
			err = b.svc.SetIdentity(ctx, "acme", w.ID, &service.SubmitIdentity{SubjectToken: fresh})
			require.ErrorIs(t, err, service.ErrNotResumable)
			require.ErrorContains(t, err, "not for a credential")

			// No identity, and none comes before the deadline: the call
			// ends credential_unavailable, the reason it parked with.
			x, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{
				Script: `try { return await tools.crm({}); } catch (e) { return "refused " + e.reason; }`,
			}, service.SubmitOptions{})
			require.NoError(t, err)
			require.Equal(t, "parked", x.Status, "%+v", x.Result)
			require.Equal(t, invoker.ReasonCredentialUnavailable, x.Pending[0].Rule)
			late := time.Now().Add(2 * time.Hour)
			b.clock.Store(&late)
			out, err := b.svc.Resume(ctx, "acme", x.ID)
			require.NoError(t, err)
			require.Equal(t, "ok", out.Status, "%+v", out.Result)
			require.JSONEq(t, `"refused credential_unavailable"`, string(out.Result.Value))
			require.Equal(t, invoker.ReasonCredentialUnavailable, out.Result.Trace[0].Reason)

			// No token in any object of the store.
			drv := open()
			require.NoError(t, drv.List(ctx, "", func(e blobstore.Entry) error {
				r, err := drv.Get(ctx, e.Key, 0, -1)
				if err != nil {
					return nil // gone meanwhile
				}
				defer r.Close()
				data, _ := io.ReadAll(r)
				for _, tok := range []string{expired, fresh} {
					require.False(t, bytes.Contains(data, []byte(tok)), "a token in %s", e.Key)
				}
				return nil
			}))
		})
	}
}

// TestCredentialResumesArePaidFor: each identity handed to a chain parked
// for a credential is a wake: a tenant handing refused tokens again and
// again ends it with the stable reason wakes once approval.max_wakes is
// spent, rather than resuming it for ever.
func TestCredentialResumesArePaidFor(t *testing.T) {
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}}})
	crm := op.Upstream(t, "crm", func(string) {})
	ctx := context.Background()
	mem := lockedDrivers(t)["mem"]
	a := newCredProcWith(t, mem(), "node-a", op, crm.URL, func(o *service.Options) { o.MaxWakes = 3 })
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	expired := op.Subject("alice", -time.Minute)
	v, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{Script: `return await tools.crm({});`,
		Identity: &service.SubmitIdentity{SubjectToken: expired}}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status)
	var end service.ChainView
	for i := 0; i < 10; i++ {
		err := a.svc.SetIdentity(ctx, "acme", v.ID, &service.SubmitIdentity{SubjectToken: expired})
		require.Eventually(t, func() bool {
			end, _ = a.svc.Chain(ctx, "acme", v.ID)
			return end.Status != "running"
		}, 10*time.Second, 10*time.Millisecond)
		if end.Status != "parked" {
			break
		}
		require.NoError(t, err, "resume %d", i)
	}
	require.Equal(t, string(chain.StatusLimitExceeded), end.Status)
	require.Equal(t, service.ReasonWakes, end.Result.Reason)
	require.ErrorIs(t, a.svc.SetIdentity(ctx, "acme", v.ID, &service.SubmitIdentity{SubjectToken: expired}), service.ErrFinished)
}

// credentialFileMarker is what the lookup tool of newCredProc returns: data
// a chain holds only in its sealed state.
const credentialFileMarker = "customer-file-7f3a9c"

// TestCredentialRequestKeepsNoArguments: a call parked for a fresh
// credential is decided by an identity, never by a person reading its
// arguments, so its request in the bucket keeps only their hash and size:
// what the chain passed it (here a tool's result, which the chain holds
// only in its encrypted state) is not written in clear.
func TestCredentialRequestKeepsNoArguments(t *testing.T) {
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}}})
	crm := op.Upstream(t, "crm", func(string) {})
	ctx := context.Background()
	mem := lockedDrivers(t)["mem"]
	a := newCredProc(t, mem(), "node-a", op, crm.URL)
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	v, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{Script: `return await tools.crm_note({note: await tools.lookup({})});`,
		Identity: &service.SubmitIdentity{SubjectToken: op.Subject("alice", -time.Minute)}}, service.SubmitOptions{})
	require.NoError(t, err)
	require.Equal(t, "parked", v.Status, "%+v", v.Result)
	require.Equal(t, durable.KindCredential, v.Pending[0].Kind)
	drv := mem()
	require.NoError(t, drv.List(ctx, "", func(e blobstore.Entry) error {
		r, err := drv.Get(ctx, e.Key, 0, -1)
		if err != nil {
			return nil
		}
		defer r.Close()
		data, _ := io.ReadAll(r)
		require.False(t, bytes.Contains(data, []byte(credentialFileMarker)), "the call's arguments in clear in %s", e.Key)
		return nil
	}))
}

// TestIdentityHandedWhileParkingIsNotLost: a fresh identity handed as soon
// as credential_required says the chain parks for one (the event comes
// while the refused call still ends, before the park is written) is not
// lost with the stretch that parks: the chain resumes with it and the call
// runs, rather than waiting parked for an identity SetIdentity said it had
// taken.
func TestIdentityHandedWhileParkingIsNotLost(t *testing.T) {
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}}})
	var sent atomic.Int32
	crm := op.Upstream(t, "crm", func(string) { sent.Add(1) })
	ctx := context.Background()
	mem := lockedDrivers(t)["mem"]
	a := newCredProc(t, mem(), "node-a", op, crm.URL)
	acme := service.Caller{Tenant: "acme", Role: service.RoleAll}
	expired, fresh := op.Subject("alice", -time.Minute), op.Subject("alice", time.Hour)
	reached, proceed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	v, err := a.svc.Submit(ctx, acme, &service.SubmitRequest{Script: `return await tools.crm({});`,
		Identity: &service.SubmitIdentity{SubjectToken: expired}}, service.SubmitOptions{Detach: true, Watch: func(ev service.Event) {
		if ev.Name == service.EventCredentialRequired {
			once.Do(func() {
				close(reached)
				<-proceed
			})
		}
	}})
	require.NoError(t, err)
	select {
	case <-reached:
	case <-time.After(30 * time.Second):
		t.Fatal("no credential_required")
	}
	require.NoError(t, a.svc.SetIdentity(ctx, "acme", v.ID, &service.SubmitIdentity{SubjectToken: fresh}))
	close(proceed)
	var end service.ChainView
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if end, err = a.svc.Chain(ctx, "acme", v.ID); err == nil && end.Status != "parked" && end.Status != "running" {
			break
		}
	}
	require.Equal(t, "ok", end.Status, "the chain waits for the identity it was handed: %+v", end.Pending)
	require.EqualValues(t, 1, sent.Load())
}
