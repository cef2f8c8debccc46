package intl

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSupportedValues: supportedValuesOf lists Node 20's values less the
// ones README.md says airlock does not honour (this fails once one of them
// is honoured, or another is dropped), and every listed value works: a
// zone loads and reports itself, a unit and a numbering system format, a
// calendar and a collation resolve to themselves somewhere.
func TestSupportedValues(t *testing.T) {
	h := New()
	dropped := map[string][]string{
		"calendar":  {"chinese", "dangi", "islamic", "islamic-rgsa", "iso8601"},
		"collation": {"compat", "dict", "emoji", "eor", "phonetic", "pinyin", "searchjl", "trad", "unihan", "zhuyin"},
	}
	values := func(key string) []string {
		out := h.Handle([]byte(`{"op":"values","v":` + quote(key) + `}`))
		var ans struct {
			R []string `json:"r"`
		}
		require.NoError(t, json.Unmarshal(out, &ans), string(out))
		return ans.R
	}
	for key, all := range nodeSupportedValues {
		got := values(key)
		var missing []string
		for _, v := range all {
			if !slices.Contains(got, v) {
				missing = append(missing, v)
			}
		}
		require.Equal(t, dropped[key], missing, key)
		require.True(t, slices.IsSorted(got), key)
		for _, v := range got {
			var req string
			switch key {
			case "timeZone":
				_, id, err := h.zone(v)
				require.NoError(t, err, v)
				require.Equal(t, v, id, "resolvedOptions().timeZone of %s", v)
				continue
			case "unit":
				req = `{"op":"nf","l":["en"],"o":{"style":"unit","unit":` + quote(v) + `},"v":"1"}`
			case "numberingSystem":
				req = `{"op":"nf","l":["en"],"o":{"numberingSystem":` + quote(v) + `},"v":"1"}`
			case "currency":
				req = `{"op":"nf","l":["en"],"o":{"style":"currency","currency":` + quote(v) + `},"v":"1"}`
			case "calendar":
				require.True(t, h.formatsCalendar(v, "en") || h.formatsCalendar(v, "zh-Hant"), v)
				continue
			case "collation":
				continue // collations, checked by the collator's tests
			}
			var ans struct {
				R map[string]any `json:"r"`
				E string         `json:"e"`
			}
			out := h.Handle([]byte(req))
			require.NoError(t, json.Unmarshal(out, &ans), string(out))
			require.Empty(t, ans.E, "%s %s: %s", key, v, out)
			if key == "numberingSystem" {
				require.Equal(t, v, ans.R["numberingSystem"], v)
			}
		}
	}
	out := h.Handle([]byte(`{"op":"values","v":"region"}`))
	require.JSONEq(t, `{"e":"RangeError","m":"Invalid key : region"}`, string(out))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
