package httptool

import (
	"strings"
	"testing"
)

// BenchmarkScrubber measures the scrubber alone over 1 MiB of JSON text
// with escapes, for two secrets (every form registered).
func BenchmarkScrubber(b *testing.B) {
	body := []byte(`{"v":"` + strings.Repeat(`lorem ipsum \n dolor %20 sit amet `, 1<<20/34) + `"}`)
	sc := newScrubber([]string{"sk-live-0123456789abcdef~~~?", "another-secret-value-42"})
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, changed := sc.scrub(body); changed {
			b.Fatal("nothing to scrub")
		}
	}
}

// TestViewMapsBack: spans found in the decoded view map back to whole
// escapes of the original text.
func TestViewMapsBack(t *testing.T) {
	sc := newScrubber([]string{"abcdefgh"})
	for _, tc := range []struct{ in, want string }{
		{`x\u0061bcdefghy`, `x[REDACTED]y`},
		{`x%61bcdefg%68y`, `x[REDACTED]y`},
		{`\ud83d\ude00abcdefgh\ud83d\ude00`, `\ud83d\ude00[REDACTED]\ud83d\ude00`},
		{`%%61bcdefgh%`, `%[REDACTED]%`},
		{`\\abcdefgh`, `\\[REDACTED]`},
	} {
		got, _ := sc.scrub([]byte(tc.in))
		if string(got) != tc.want {
			t.Errorf("scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
