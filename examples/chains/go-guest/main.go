// Command go-guest is a compiled airlock chain: it looks up the weather of
// each city in its input, one tool call at a time, skips the cities the
// tool refuses, and returns the warmest.
//
// Build it (the module engine's tests and `make guest` do this):
//
//	GOOS=wasip1 GOARCH=wasm go build -o chain.wasm .
package main

import (
	"errors"
	"fmt"

	"github.com/airlockrt/airlock/guest-sdk/go"
)

type input struct {
	Cities []string `json:"cities"`
}

type weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

type output struct {
	Warmest *weather `json:"warmest"`
	Checked int      `json:"checked"`
	Skipped []string `json:"skipped"`
}

func main() {
	var in input
	airlock.Must(airlock.Input(&in))
	out := output{Skipped: []string{}}
	for _, city := range in.Cities {
		var w weather
		err := airlock.Call("weather", map[string]string{"city": city}, &w)
		var te *airlock.ToolError
		switch {
		case errors.As(err, &te):
			airlock.Log("warn", fmt.Sprintf("skipping %s: %s", city, te.Reason))
			out.Skipped = append(out.Skipped, city)
			continue
		case err != nil:
			airlock.Fail(err)
		}
		out.Checked++
		if out.Warmest == nil || w.TempC > out.Warmest.TempC {
			out.Warmest = &w
		}
	}
	fmt.Printf("checked %d cities\n", out.Checked) // captured as an info log line
	airlock.Must(airlock.Output(out))
}
