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
