package sandbox

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// artifactBridge answers tools.get() with an offloaded result whose envelope
// is the value itself (not plain), so the script gets an Artifact.
func artifactBridge(_ context.Context, tool string, _ []byte) ([]byte, error) {
	a := `{"$artifact":"blob_a","preview":"p","size":3,"mime":"text/plain"}`
	return []byte(`{"status":"ok","value":` + a + `,"artifact":` + a + `,"plain":false}`), nil
}

// TestArtifactReads checks OpRead's edges: no reader, a binary artifact read
// as text, base64, a ref too long, and a reader that breaks its contract.
func TestArtifactReads(t *testing.T) {
	read := func(content string) ArtifactReader {
		return func(_ context.Context, ref string, max int64) ([]byte, error) {
			if ref != "blob_a" {
				return nil, &ReadError{Reason: "artifact_not_found", Message: "no " + ref}
			}
			return []byte(content), nil
		}
	}
	tests := []struct {
		name, src string
		reader    ArtifactReader
		want      string
	}{
		{"no reader", "try { await a.text() } catch (e) { return [e.name, e.reason] }", nil, `["ArtifactError","artifact_not_found"]`},
		{"text", "return await a.text()", read("abc"), `"abc"`},
		{"json", "return (await a.json()).k", read(`{"k":[1]}`), `[1]`},
		{"binary as text", "try { await a.text() } catch (e) { return e.reason }", read("a\x00b"), `"not_text"`},
		{"binary as bytes", "return Array.from(await a.bytes())", read("a\x00\xffb"), `[97,0,255,98]`},
		{"a ref too long", "try { await new (Object.getPrototypeOf(a).constructor)({$artifact: 'x'.repeat(300)}).text() } catch (e) { return e.reason }",
			read("abc"), `"artifact_not_found"`},
		{"the reader's refusal", "try { await new (Object.getPrototypeOf(a).constructor)({$artifact: 'blob_b'}).text() } catch (e) { return [e.reason, e.message] }",
			read("abc"), `["artifact_not_found", "no blob_b"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := engine(t).Run(context.Background(), Script{Source: "const a = await tools.get();\n" + tt.src, Artifacts: tt.reader},
				artifactBridge, Limits{})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(res.Value))
		})
	}

	// Refused reads cost MinReadCharge each: a loop of them stops reaching
	// the reader once the budget is spent.
	calls := 0
	refusing := func(_ context.Context, ref string, _ int64) ([]byte, error) {
		calls++
		return nil, &ReadError{Reason: "artifact_not_found", Message: "no " + ref}
	}
	res, err := engine(t).Run(context.Background(), Script{Source: `const a = await tools.get(); let last;
		for (let i = 0; i < 100; i++) { try { await a.text() } catch (e) { last = e.reason } }
		return last`, Artifacts: refusing}, artifactBridge, Limits{MaxReadBytes: 10 * MinReadCharge})
	require.NoError(t, err)
	require.JSONEq(t, `"read_limit"`, string(res.Value))
	require.Equal(t, 10, calls)

	over := func(_ context.Context, _ string, max int64) ([]byte, error) {
		return []byte(strings.Repeat("x", int(max)+1)), nil
	}
	_, err = engine(t).Run(context.Background(), Script{Source: "const a = await tools.get(); await a.text()", Artifacts: over},
		artifactBridge, Limits{MaxReadBytes: 2 * MinReadCharge})
	requireExit(t, err, HostError, "")
}
