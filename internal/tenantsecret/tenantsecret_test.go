package tenantsecret_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/tenantsecret"
	"github.com/airlockrt/airlock/toolbox"
)

// secrets are what every source of the conformance suite holds: tenant →
// name → value.
var secrets = map[string]map[string]string{
	"acme":    {"crm_token": "acme-crm-token-value", "api_key": "acme-api-key-value"},
	"globex":  {"crm_token": "globex-crm-token-value"},
	"acme-eu": {"crm_token": "acme-eu-crm-token-value"},
}

// testSource is the conformance suite every source runs: each tenant gets
// its own secrets and never another's; a missing secret, and a tenant or
// name that could climb out of its place, are refused before any lookup.
func testSource(t *testing.T, src toolbox.TenantSecrets) {
	ctx := context.Background()
	t.Run("own secrets", func(t *testing.T) {
		for tenant, names := range secrets {
			for name, want := range names {
				got, err := src.TenantSecret(ctx, tenant, name)
				require.NoError(t, err, "%s/%s", tenant, name)
				require.Equal(t, want, got)
			}
		}
	})
	t.Run("missing", func(t *testing.T) {
		for _, tc := range [][2]string{{"globex", "api_key"}, {"initech", "crm_token"}, {"acme", "nope"}} {
			v, err := src.TenantSecret(ctx, tc[0], tc[1])
			require.ErrorIs(t, err, tenantsecret.ErrUnavailable, "%v", tc)
			require.Empty(t, v)
			for _, vals := range secrets {
				for _, val := range vals {
					require.NotContains(t, err.Error(), val)
				}
			}
		}
	})
	t.Run("traversal refused", func(t *testing.T) {
		tenants := []string{"", ".", "..", "../acme", "acme/..", "acme/../globex", "/acme", "/etc", "acme\x00", "ACME", "-acme", "_acme", "acme eu", ".acme", strings.Repeat("a", 65)}
		names := []string{"", ".", "..", "..data", "../crm_token", "../../globex/crm_token", "a/b", "/etc/passwd", "crm_token\x00", "CRM_TOKEN", "crm-token", "crm.token", "1token", "_token", strings.Repeat("a", 65)}
		for _, tenant := range tenants {
			v, err := src.TenantSecret(ctx, tenant, "crm_token")
			require.ErrorIs(t, err, tenantsecret.ErrInvalidName, "tenant %q", tenant)
			require.Empty(t, v)
		}
		for _, name := range names {
			v, err := src.TenantSecret(ctx, "acme", name)
			require.ErrorIs(t, err, tenantsecret.ErrInvalidName, "name %q", name)
			require.Empty(t, v)
		}
	})
}

func TestDirSource(t *testing.T) {
	dir := t.TempDir()
	for tenant, names := range secrets {
		kubernetesSecret(t, filepath.Join(dir, tenant), names)
	}
	src, err := tenantsecret.Options{Dir: dir}.Source()
	require.NoError(t, err)
	testSource(t, src)
}

func TestEnvSource(t *testing.T) {
	env := map[string]string{}
	for tenant, names := range secrets {
		for name, v := range names {
			n, err := tenantsecret.EnvName("AIRLOCK_SECRET_", tenant, name)
			require.NoError(t, err)
			env[n] = v
		}
	}
	src, err := tenantsecret.Options{EnvPrefix: "AIRLOCK_SECRET_", LookupEnv: lookup(env)}.Source()
	require.NoError(t, err)
	testSource(t, src)
}

func TestFuncSource(t *testing.T) {
	testSource(t, toolbox.TenantSecretsFunc(func(_ context.Context, tenant, name string) (string, error) {
		// What a source of an embedding program does: check first.
		if _, err := tenantsecret.EnvName("X_", tenant, name); err != nil {
			return "", err
		}
		if v, ok := secrets[tenant][name]; ok {
			return v, nil
		}
		return "", tenantsecret.ErrUnavailable
	}))
}

// kubernetesSecret lays dir out as the kubelet mounts a Secret: the keys
// are links to ..data/<key>, ..data a link to a timestamped directory.
func kubernetesSecret(t *testing.T, dir string, values map[string]string) {
	t.Helper()
	ts := "..2026_11_27_20_00_00.123456789"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ts), 0o755))
	for k, v := range values {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ts, k), []byte(v), 0o644))
		require.NoError(t, os.Symlink(filepath.Join("..data", k), filepath.Join(dir, k)))
	}
	require.NoError(t, os.Symlink(ts, filepath.Join(dir, "..data")))
}

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// TestDirFiles: what a file may be. One trailing line break goes; the
// size bound is exact; a symbolic link out of the tenant's directory (to
// another tenant's secret or anywhere else), a directory, a FIFO and an
// empty file are unavailable, and a FIFO does not hold the call.
func TestDirFiles(t *testing.T) {
	dir := t.TempDir()
	acme, globex := filepath.Join(dir, "acme"), filepath.Join(dir, "globex")
	require.NoError(t, os.MkdirAll(acme, 0o755))
	require.NoError(t, os.MkdirAll(globex, 0o755))
	write := func(name, v string) { require.NoError(t, os.WriteFile(filepath.Join(acme, name), []byte(v), 0o600)) }
	write("newline", "value-one\n")
	write("crlf", "value-two\r\n")
	write("two_newlines", "value-three\n\n")
	write("exact", strings.Repeat("x", 32))
	write("over", strings.Repeat("x", 33))
	write("empty", "")
	write("only_newline", "\n")
	require.NoError(t, os.WriteFile(filepath.Join(globex, "crm_token"), []byte("globex-secret-value"), 0o600))
	outside := filepath.Join(t.TempDir(), "outside")
	require.NoError(t, os.WriteFile(outside, []byte("outside-secret-value"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join("..", "globex", "crm_token"), filepath.Join(acme, "to_globex")))
	require.NoError(t, os.Symlink(filepath.Join(globex, "crm_token"), filepath.Join(acme, "to_globex_abs")))
	require.NoError(t, os.Symlink(outside, filepath.Join(acme, "to_outside")))
	require.NoError(t, os.Mkdir(filepath.Join(acme, "a_dir"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(acme, "fifo"), 0o600))

	src := tenantsecret.NewDir(dir, 32)
	ctx := context.Background()
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"newline", "value-one", nil},
		{"crlf", "value-two", nil},
		{"two_newlines", "value-three\n", nil},
		{"exact", strings.Repeat("x", 32), nil},
		{"over", "", tenantsecret.ErrTooLarge},
		{"empty", "", tenantsecret.ErrUnavailable},
		{"only_newline", "", tenantsecret.ErrUnavailable},
		{"to_globex", "", tenantsecret.ErrUnavailable},
		{"to_globex_abs", "", tenantsecret.ErrUnavailable},
		{"to_outside", "", tenantsecret.ErrUnavailable},
		{"a_dir", "", tenantsecret.ErrUnavailable},
		{"fifo", "", tenantsecret.ErrUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			v, err := src.TenantSecret(ctx, "acme", tc.name)
			require.Less(t, time.Since(start), 5*time.Second)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.NotContains(t, err.Error(), "secret-value")
				require.NotContains(t, err.Error(), dir, "no host path in the error")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, v)
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := src.TenantSecret(cctx, "acme", "newline")
		require.ErrorIs(t, err, tenantsecret.ErrUnavailable)
		require.ErrorIs(t, err, context.Canceled)
	})
}

// TestDirRotation: a Kubernetes update swaps ..data; the next call reads
// the new value (nothing is cached).
func TestDirRotation(t *testing.T) {
	dir := t.TempDir()
	tdir := filepath.Join(dir, "acme")
	kubernetesSecret(t, tdir, map[string]string{"crm_token": "old-token-value"})
	src := tenantsecret.NewDir(dir, 0)
	v, err := src.TenantSecret(context.Background(), "acme", "crm_token")
	require.NoError(t, err)
	require.Equal(t, "old-token-value", v)
	next := "..2026_11_28_00_00_00.1"
	require.NoError(t, os.Mkdir(filepath.Join(tdir, next), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tdir, next, "crm_token"), []byte("new-token-value"), 0o600))
	require.NoError(t, os.Symlink(next, filepath.Join(tdir, "..data_tmp")))
	require.NoError(t, os.Rename(filepath.Join(tdir, "..data_tmp"), filepath.Join(tdir, "..data")))
	v, err = src.TenantSecret(context.Background(), "acme", "crm_token")
	require.NoError(t, err)
	require.Equal(t, "new-token-value", v)
}

// TestEnvName: the exact mapping, and the tenants it cannot name.
func TestEnvName(t *testing.T) {
	for _, tc := range []struct{ tenant, name, want string }{
		{"acme", "crm_token", "AIRLOCK_SECRET_ACME__CRM_TOKEN"},
		{"acme-eu", "crm_token", "AIRLOCK_SECRET_ACME_EU__CRM_TOKEN"},
		{"a", "b_c", "AIRLOCK_SECRET_A__B_C"},
		{"a-b", "c", "AIRLOCK_SECRET_A_B__C"},
		{"a", "b__c", "AIRLOCK_SECRET_A__B__C"},
		{"0day", "k1", "AIRLOCK_SECRET_0DAY__K1"},
	} {
		got, err := tenantsecret.EnvName("AIRLOCK_SECRET_", tc.tenant, tc.name)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	for _, tenant := range []string{"a_b", "a--b", "a-", "a_", "-a", "", "A"} {
		_, err := tenantsecret.EnvName("AIRLOCK_SECRET_", tenant, "c")
		require.ErrorIs(t, err, tenantsecret.ErrInvalidName, "tenant %q", tenant)
	}
	// The example of the issue: tenant a_b's c and tenant a's b_c cannot
	// meet, because a_b has no variable at all.
	_, err := tenantsecret.EnvName("P_", "a_b", "c")
	require.ErrorIs(t, err, tenantsecret.ErrInvalidName)
	v, err := tenantsecret.NewEnv("P_", lookup(map[string]string{"P_A__B_C": "a-secret-value"}), 0).TenantSecret(context.Background(), "a_b", "c")
	require.ErrorIs(t, err, tenantsecret.ErrInvalidName)
	require.Empty(t, v)
}

// TestEnvNameOneToOne: over every tenant id and name of up to four
// characters from an alphabet holding each kind of character, no two
// (tenant, name) pairs the mapping accepts share a variable.
func TestEnvNameOneToOne(t *testing.T) {
	words := func(alphabet string, n int) []string {
		out := []string{""}
		all := []string{}
		for range n {
			var next []string
			for _, w := range out {
				for _, c := range alphabet {
					next = append(next, w+string(c))
				}
			}
			all = append(all, next...)
			out = next
		}
		return all
	}
	tenants := words("a1-_", 4)
	names := words("a1_", 4)
	seen := map[string][2]string{}
	accepted := 0
	for _, tenant := range tenants {
		for _, name := range names {
			v, err := tenantsecret.EnvName("P_", tenant, name)
			if err != nil {
				continue
			}
			accepted++
			prev, dup := seen[v]
			require.False(t, dup, "%q/%q and %q/%q both map to %s", tenant, name, prev[0], prev[1], v)
			seen[v] = [2]string{tenant, name}
		}
	}
	require.Greater(t, accepted, 1000)
}

func TestEnvValues(t *testing.T) {
	env := map[string]string{"P_ACME__EMPTY": "", "P_ACME__BIG": strings.Repeat("x", 17), "P_ACME__OK": strings.Repeat("x", 16)}
	src := tenantsecret.NewEnv("P_", lookup(env), 16)
	ctx := context.Background()
	_, err := src.TenantSecret(ctx, "acme", "empty")
	require.ErrorIs(t, err, tenantsecret.ErrUnavailable)
	_, err = src.TenantSecret(ctx, "acme", "big")
	require.ErrorIs(t, err, tenantsecret.ErrTooLarge)
	require.NotContains(t, err.Error(), "xxxx")
	v, err := src.TenantSecret(ctx, "acme", "ok")
	require.NoError(t, err)
	require.Len(t, v, 16)
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    tenantsecret.Options
		err  string
	}{
		{"none", tenantsecret.Options{}, ""},
		{"dir", tenantsecret.Options{Dir: "/run/secrets"}, ""},
		{"env", tenantsecret.Options{EnvPrefix: "AIRLOCK_SECRET_"}, ""},
		{"both", tenantsecret.Options{Dir: "/x", EnvPrefix: "P_"}, "env_prefix and dir are both set: choose one source"},
		{"relative dir", tenantsecret.Options{Dir: "secrets"}, `dir "secrets" must be an absolute path`},
		{"lower prefix", tenantsecret.Options{EnvPrefix: "airlock_"}, `env_prefix "airlock_" must be 1 to 64 of A-Z, 0-9 and _, starting with a letter (e.g. AIRLOCK_SECRET_)`},
		{"negative", tenantsecret.Options{Dir: "/x", MaxBytes: -1}, "max_bytes -1 must be 0 (the default, 16384) to 1048576"},
		{"too big", tenantsecret.Options{Dir: "/x", MaxBytes: tenantsecret.MaxMaxBytes + 1}, "max_bytes 1048577 must be 0 (the default, 16384) to 1048576"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := tc.o.Source()
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				require.Nil(t, src)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.o.Dir == "" && tc.o.EnvPrefix == "", src == nil)
		})
	}
}

// TestDirReadsDuringRotation: while the kubelet swaps ..data again and
// again, concurrent reads see the old or the new value, whole, and never
// another tenant's.
func TestDirReadsDuringRotation(t *testing.T) {
	dir := t.TempDir()
	tdir := filepath.Join(dir, "acme")
	kubernetesSecret(t, tdir, map[string]string{"crm_token": "value-0"})
	kubernetesSecret(t, filepath.Join(dir, "globex"), map[string]string{"crm_token": "globex-value"})
	src := tenantsecret.NewDir(dir, 0)
	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			ts := fmt.Sprintf("..gen_%d", i)
			if err := os.Mkdir(filepath.Join(tdir, ts), 0o755); err != nil {
				panic(err)
			}
			if err := os.WriteFile(filepath.Join(tdir, ts, "crm_token"), []byte(fmt.Sprintf("value-%d", i)), 0o600); err != nil {
				panic(err)
			}
			tmp := filepath.Join(tdir, "..data_tmp")
			if err := os.Symlink(ts, tmp); err != nil {
				panic(err)
			}
			if err := os.Rename(tmp, filepath.Join(tdir, "..data")); err != nil {
				panic(err)
			}
		}
	}()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				v, err := src.TenantSecret(context.Background(), "acme", "crm_token")
				require.NoError(t, err)
				require.True(t, strings.HasPrefix(v, "value-"), v)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-swapped
}
