package blobstore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidTenant(t *testing.T) {
	tests := []struct {
		tenant string
		want   bool
	}{
		{"a", true},
		{"0", true},
		{"acme", true},
		{"acme-corp_2", true},
		{strings.Repeat("a", MaxTenantLen), true},
		{"", false},
		{strings.Repeat("a", MaxTenantLen+1), false},
		{"-acme", false},
		{"_acme", false},
		{"Acme", false},
		{"acme corp", false},
		{"acme/corp", false},
		{"..", false},
		{"a.b", false},
		{"ä", false},
		{"acme\x00", false},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, ValidTenant(tc.tenant), "%q", tc.tenant)
	}
}

func TestRefFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		ref, body := newRef("acme")
		require.Len(t, ref, RefLen)
		require.Equal(t, 37, RefLen)
		require.True(t, strings.HasPrefix(ref, "blob_"))
		require.Equal(t, ref[len("blob_"):], body)
		for _, c := range body {
			require.True(t, (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'), "%q", c)
		}
		require.False(t, seen[ref], "duplicate ref")
		seen[ref] = true

		got, ok := parseRef("acme", ref)
		require.True(t, ok)
		require.Equal(t, body, got)
		require.False(t, ValidRef("acme2", ref), "a ref must not validate for another tenant")
		require.False(t, ValidRef("Acme", ref))
	}
}

func TestParseRefRejects(t *testing.T) {
	ref, _ := newRef("acme")
	tests := map[string]string{
		"empty":        "",
		"prefix only":  "blob_",
		"truncated":    ref[:RefLen-1],
		"overlong":     ref + "a",
		"upper":        strings.ToUpper(ref),
		"bad alphabet": ref[:RefLen-1] + "1",
		"bad prefix":   "blob-" + ref[5:],
		"traversal":    "blob_" + strings.Repeat("../", 10) + "ab",
		"slash":        ref[:10] + "/" + ref[11:],
		"flipped":      ref[:RefLen-1] + string(rune('a'+(ref[RefLen-1]-'a'+1)%26)),
	}
	for name, r := range tests {
		_, ok := parseRef("acme", r)
		require.False(t, ok, name)
	}
	_, ok := parseRef("", ref)
	require.False(t, ok, "invalid tenant")
}

func TestKeysAreValid(t *testing.T) {
	ref, body := newRef("t")
	k := newBlobKeys("t", ref, body)
	for _, key := range []string{k.data(), k.meta(), k.unpinned(), k.pin("../../owner"), k.pin(""), k.newClaim()} {
		require.True(t, ValidKey(key), key)
		g, tenant, b, rest, ok := groupOf(key)
		require.True(t, ok, key)
		require.Equal(t, k.group, g)
		require.Equal(t, "t", tenant)
		require.Equal(t, body, b)
		require.NotEmpty(t, rest)
	}
	for _, key := range []string{"b/t", "b/t/", "b/T/" + body + "/data", "b/t/short/data", "x/t/" + body + "/data", "b/t/" + body + "/"} {
		_, _, _, _, ok := groupOf(key)
		require.False(t, ok, key)
	}
}

func TestValidKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"a", true},
		{"b/t/x/data", true},
		{"a.b/c-d_e", true},
		{"...", true},
		{strings.Repeat("a", MaxKeyLen), true},
		{"", false},
		{strings.Repeat("a", MaxKeyLen+1), false},
		{"/a", false},
		{"a/", false},
		{"a//b", false},
		{".", false},
		{"..", false},
		{"a/../b", false},
		{"a/./b", false},
		{"A", false},
		{"a b", false},
		{`a\b`, false},
		{"a:b", false},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, ValidKey(tc.key), "%q", tc.key)
	}
}

// FuzzParseRef feeds arbitrary tenants and refs to the ref validator, the
// parser of untrusted input every Store method runs first.
func FuzzParseRef(f *testing.F) {
	ref, _ := newRef("acme")
	f.Add("acme", ref)
	f.Add("acme", ref[:RefLen-1])
	f.Add("acme", ref+"a")
	f.Add("other", ref)
	f.Add("acme", "blob_../../../../../../../etc/passwd")
	f.Add("acme", "blob_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Add("../x", ref)
	f.Fuzz(func(t *testing.T, tenant, ref string) {
		body, ok := parseRef(tenant, ref)
		if !ok {
			require.Empty(t, body)
			return
		}
		require.True(t, ValidTenant(tenant))
		require.Len(t, ref, RefLen)
		require.Equal(t, "blob_"+body, ref)
		k := newBlobKeys(tenant, ref, body)
		for _, key := range []string{k.data(), k.meta(), k.pin("o"), k.unpinned()} {
			require.True(t, ValidKey(key), key)
			require.True(t, filepath.IsLocal(key), key)
			require.True(t, strings.HasPrefix(key, "b/"+tenant+"/"), key)
		}
	})
}

// FuzzValidKey checks that every key a driver accepts is a plain relative
// path that stays where it is put.
func FuzzValidKey(f *testing.F) {
	for _, s := range []string{"a", "b/t/x/data", "../a", "a/../../b", "a//b", "/", "a/./b", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if !ValidKey(key) {
			return
		}
		require.True(t, filepath.IsLocal(key), key)
		require.Equal(t, key, filepath.ToSlash(filepath.Clean(filepath.FromSlash(key))), key)
		require.NotContains(t, "/"+key+"/", "/../")
	})
}
