package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/approval"
	"github.com/airlockrt/airlock/blobstore"
	"github.com/airlockrt/airlock/blobstore/memblob"
	"github.com/airlockrt/airlock/chain"
	"github.com/airlockrt/airlock/internal/demo"
	"github.com/airlockrt/airlock/internal/enginetest"
	"github.com/airlockrt/airlock/invoker"
	"github.com/airlockrt/airlock/sandbox"
	"github.com/airlockrt/airlock/service"
)

// scripts is the test binary's one script engine.
func scripts(t testing.TB) *sandbox.ScriptEngine { return enginetest.Scripts(t) }

const (
	keyAcme    = "acme-key-0123456789abcdef"
	keySubmit  = "submit-key-0123456789abcdef"
	keyApprove = "approve-key-0123456789abcdef"
)

// newService builds a service over the demo tools with an approval queue,
// as internal/assemble does for airlock serve; edit adjusts its options.
func newService(t *testing.T, edit func(*service.Options)) (*service.Service, *approval.Queue) {
	t.Helper()
	box, _ := demo.Toolbox()
	store := blobstore.New(memblob.New(), blobstore.Options{})
	t.Cleanup(func() { _ = store.Close() })
	queue := approval.NewQueue(approval.Options{})
	inv, err := invoker.New(box, invoker.Options{Approver: queue, Store: store})
	require.NoError(t, err)
	runner, err := chain.New(inv, chain.Engines{Scripts: scripts(t)})
	require.NoError(t, err)
	o := service.Options{
		Queue:           queue,
		MaxRequestBytes: 64 << 10,
		Keys: func(key string) (service.Caller, bool) {
			switch key {
			case keyAcme:
				return service.Caller{Tenant: "acme"}, true
			case keySubmit:
				return service.Caller{Tenant: "acme", Role: service.RoleSubmit}, true
			case keyApprove:
				return service.Caller{Tenant: "acme", Role: service.RoleApprover}, true
			}
			return service.Caller{}, false
		},
	}
	if edit != nil {
		edit(&o)
	}
	svc, err := service.New(runner, o)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Close(ctx)
	})
	return svc, queue
}
