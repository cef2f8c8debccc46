package scrub

import (
	"strings"
	"testing"
)

// BenchmarkScrubber measures the scrubber alone over 1 MiB of JSON text,
// with and without escapes, for two secrets (every form registered).
func BenchmarkScrubber(b *testing.B) {
	sc := New([]string{"sk-live-0123456789abcdef~~~?", "another-secret-value-42"})
	for name, unit := range map[string]string{"escapes": `lorem ipsum \n dolor %20 sit amet `, "plain": `lorem ipsum dolor sit amet, consectetur `} {
		body := []byte(`{"v":"` + strings.Repeat(unit, 1<<20/len(unit)) + `"}`)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, changed := sc.Bytes(body); changed {
					b.Fatal("nothing to scrub")
				}
			}
		})
	}
}

// TestViewMapsBack: spans found in the decoded view map back to whole
// escapes of the original text.
func TestViewMapsBack(t *testing.T) {
	sc := New([]string{"abcdefgh"})
	for _, tc := range []struct{ in, want string }{
		{`x\u0061bcdefghy`, `x[REDACTED]y`},
		{`x%61bcdefg%68y`, `x[REDACTED]y`},
		{`\ud83d\ude00abcdefgh\ud83d\ude00`, `\ud83d\ude00[REDACTED]\ud83d\ude00`},
		{`%%61bcdefgh%`, `%[REDACTED]%`},
		{`\\abcdefgh`, `\\[REDACTED]`},
	} {
		got, _ := sc.Bytes([]byte(tc.in))
		if string(got) != tc.want {
			t.Errorf("scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzScrub feeds arbitrary response bytes to the scrubber: it never
// panics, and what it returns holds no FragmentBytes-long run of the secret
// in any letter case.
func FuzzScrub(f *testing.F) {
	const secret = "sk-live-0123456789abcdef~~~?"
	for _, seed := range []string{
		secret, `{"v":"\u0073k-live-0123456789abcdef"}`, "%73%6B-live-0123456789ABCDEF", "%", `\u`, `\ud83d\ude00`,
		`\ud83d`, "c2stbGl2ZS0wMTIzNDU2Nzg5YWJjZGVmfn5+Pw==", strings.Repeat(secret[:13], 3),
	} {
		f.Add([]byte(seed))
	}
	sc := New([]string{secret})
	low := strings.ToLower(secret)
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _ := sc.Bytes(b)
		got := strings.ToLower(string(out))
		for i := 0; i+FragmentBytes <= len(low); i++ {
			if strings.Contains(got, low[i:i+FragmentBytes]) {
				t.Fatalf("scrub(%q) = %q holds %q", b, out, low[i:i+FragmentBytes])
			}
		}
	})
}
