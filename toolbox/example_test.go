package toolbox_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/airlockrt/airlock/toolbox"
)

func ExampleFunc() {
	type WeatherIn struct {
		City string `json:"city" jsonschema:"city name"`
	}
	type WeatherOut struct {
		TempC float64 `json:"temp_c"`
	}
	weather := toolbox.Func("weather", "Current temperature of a city",
		func(ctx context.Context, in WeatherIn) (WeatherOut, error) {
			return WeatherOut{TempC: 21.5}, nil
		})

	box, err := toolbox.New(weather)
	if err != nil {
		panic(err)
	}
	entry, _ := box.Lookup("weather")
	fmt.Println(entry.Validate(json.RawMessage(`{"city":"Oslo"}`)) == nil)
	fmt.Println(entry.Validate(json.RawMessage(`{"town":"Oslo"}`)) != nil)

	schema, _ := json.Marshal(box.Schemas()[0])
	fmt.Println(string(schema))
	// Output:
	// true
	// true
	// {"type":"function","function":{"name":"weather","description":"Current temperature of a city","parameters":{"type":"object","properties":{"city":{"type":"string","description":"city name"}},"required":["city"],"additionalProperties":false}}}
}

// A tool that needs the calling tenant's credential asks a TenantSecrets
// for it at call time, for the tenant of the call's Caller, and reports a
// missing one as a CredentialUnavailableError (reason
// credential_unavailable).
func ExampleTenantSecretsFunc() {
	vault := map[string]string{"acme/crm_token": "acme-token"}
	secrets := toolbox.TenantSecretsFunc(func(_ context.Context, tenant, name string) (string, error) {
		if v, ok := vault[tenant+"/"+name]; ok {
			return v, nil
		}
		return "", fmt.Errorf("no secret %s for tenant %s", name, tenant)
	})
	lookup := func(ctx context.Context) error {
		c, _ := toolbox.CallerFrom(ctx)
		token, err := secrets.TenantSecret(ctx, c.Tenant(), "crm_token")
		if err != nil {
			return &toolbox.CredentialUnavailableError{Ref: "${tenant:crm_token}", Reason: "it is not set for this tenant", Err: err}
		}
		_ = token // sent upstream, never returned
		return nil
	}
	for _, tenant := range []string{"acme", "globex"} {
		err := lookup(toolbox.WithCaller(context.Background(), toolbox.StaticCaller{TenantID: tenant}))
		fmt.Printf("%s: %v\n", tenant, err)
	}
	// Output:
	// acme: <nil>
	// globex: credential ${tenant:crm_token} is not available: it is not set for this tenant
}

// A tool that acts for the user a chain works on behalf of reads the
// chain's delegated identity from its context; the identity never prints
// its token.
func ExampleIdentityFrom() {
	whoami := func(ctx context.Context) string {
		id, ok := toolbox.IdentityFrom(ctx)
		if !ok {
			return "no identity"
		}
		return fmt.Sprintf("%v of type %s", id, id.TokenType())
	}
	ctx := context.Background()
	fmt.Println(whoami(ctx))
	ctx = toolbox.WithIdentity(ctx, &toolbox.Identity{SubjectToken: "eyJ-user-token"})
	fmt.Println(whoami(ctx))
	err := &toolbox.CredentialExpiredError{Audience: `"crm"`, Reason: "the token service refused the chain's token (invalid_grant)"}
	fmt.Println(err)
	// Output:
	// no identity
	// toolbox.Identity{[REDACTED]} of type urn:ietf:params:oauth:token-type:access_token
	// the delegated credential for audience "crm" is expired or was refused: the token service refused the chain's token (invalid_grant)
}
