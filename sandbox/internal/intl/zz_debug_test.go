package intl

import (
	"os"
	"strings"
	"testing"
)

func TestZZSeg(t *testing.T) {
	h := New()
	for _, s := range strings.Split(os.Getenv("ZZ"), ",") {
		b := wordSegmentsOf(t, h, "ja", s)
		u := []rune{}
		for _, r := range s {
			if r >= 0x10000 {
				u = append(u, r, 0)
			} else {
				u = append(u, r)
			}
		}
		var out []string
		for _, x := range b {
			seg := strings.ReplaceAll(string(u[x[0]:x[1]]), "\x00", "")
			w := ""
			if x[2] == 1 {
				w = "*"
			}
			out = append(out, "\""+seg+"\""+w)
		}
		t.Log(strings.Join(out, " "))
	}
}
