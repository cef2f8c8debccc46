package intl

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNumberRangeCurrencyNameField: a range of a currency by name whose
// number ends in the currency's symbol (pt-CV's "1 - 2 ADP Pesetas de
// Andorra") has one currency part from the symbol to the end of the name,
// as one number has (appendName) and as Node 20 writes it; the merge of
// the money branch wrote the symbol, the space and the name as three
// parts.
func TestNumberRangeCurrencyNameField(t *testing.T) {
	h := New()
	for _, c := range []struct{ cur, a, b, want string }{
		{"ADP", "1", "2", `[["integer","1","startRange"],["literal"," - ","shared"],["integer","2","endRange"],["literal","\u00a0","shared"],["currency","ADP Pesetas de Andorra","shared"]]`},
		{"ADP", "1", "1", `[["approximatelySign","~","shared"],["integer","1","shared"],["literal","\u00a0","shared"],["currency","ADP Peseta de Andorra","shared"]]`},
		{"ADP", "-2", "5", `[["minusSign","-","startRange"],["integer","2","startRange"],["literal","\u00a0","startRange"],["currency","ADP","startRange"],["literal"," - ","shared"],["integer","5","endRange"],["literal","\u00a0","endRange"],["currency","ADP Pesetas de Andorra","shared"]]`},
		{"XOF", "1", "2", `[["integer","1","startRange"],["literal"," - ","shared"],["integer","2","endRange"],["literal","\u00a0","shared"],["currency","F\u202fCFA francos CFA (BCEAO)","shared"]]`},
		{"CVE", "3", "3.001", `[["approximatelySign","~","shared"],["integer","3","shared"],["decimal","$","shared"],["fraction","00","shared"],["literal","\u00a0","shared"],["currency","\u200b escudos cabo-verdianos","shared"]]`},
	} {
		req := `{"op":"nfr","l":["pt-CV"],"o":{"style":"currency","currency":"` + c.cur + `","currencyDisplay":"name"},"v":["` + c.a + `","n"],"w":["` + c.b + `","n"],"p":true}`
		var ans struct {
			P [][3]string `json:"p"`
		}
		out := h.Handle([]byte(req))
		require.NoError(t, json.Unmarshal(out, &ans), string(out))
		got, _ := json.Marshal(ans.P)
		require.JSONEq(t, c.want, string(got), c.cur+" "+c.a+" "+c.b)
	}
}
