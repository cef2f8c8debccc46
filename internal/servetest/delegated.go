package servetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/airlockrt/airlock/internal/oidctest"
)

// StartDelegated starts the servers of o with delegated identities on: a
// real RFC 8693 token service (internal/oidctest) that issues alice tokens
// of audience crm, an upstream of that audience that answers whom a token
// acts for ({"subject", "audience"}) and accepts no other, and the HTTP
// tool crm_whoami (audience crm) that calls it; o.Config is replaced. The
// environment it returns holds the servers' variables (Served.Env) and
// alice's subject tokens: AIRLOCK_TEST_SUBJECT_TOKEN and
// AIRLOCK_TEST_FRESH_TOKEN (valid for an hour) and
// AIRLOCK_TEST_EXPIRED_TOKEN (expired).
func StartDelegated(t *testing.T, o Options) (*Served, []string) {
	t.Helper()
	op := oidctest.Start(t, oidctest.Options{Audiences: map[string][]string{"alice": {"crm"}}})
	upstream := op.Upstream(t, "crm", nil)
	o.Config = fmt.Sprintf(`
identity:
  token_exchange: {token_url: %q, client_id: %q, client_secret: "${env:CLIENT_TEST_STS_SECRET}"}
tools:
  http:
    - {name: crm_whoami, description: Says whom the CRM sees the call acting for, url: %q, method: POST,
       risk: SAFE, audience: crm, input_schema: {type: object}}
`, op.TokenURL, op.ClientID, upstream.URL)
	o.Env = append(o.Env, "CLIENT_TEST_STS_SECRET="+op.ClientSecret)
	s := Start(t, o)
	return s, append(s.Env(),
		"AIRLOCK_TEST_SUBJECT_TOKEN="+op.Subject("alice", time.Hour),
		"AIRLOCK_TEST_FRESH_TOKEN="+op.Subject("alice", time.Hour),
		"AIRLOCK_TEST_EXPIRED_TOKEN="+op.Subject("alice", -time.Minute))
}
