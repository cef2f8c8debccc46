package setting_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/airlockrt/airlock/internal/setting"
)

type owner struct {
	Calls int
	Wait  time.Duration
	Bytes uint64
}

var table = setting.Table[owner]{
	setting.Of("calls", setting.Count, 10, func(o *owner) *int { return &o.Calls }, "calls"),
	setting.Of("wait", setting.Duration, time.Second, func(o *owner) *time.Duration { return &o.Wait }, "wait"),
	setting.Of("bytes", setting.Bytes, uint64(1<<20), func(o *owner) *uint64 { return &o.Bytes }, "bytes").Within(1<<10, 1<<30),
}

func TestParseFormatAndDefaults(t *testing.T) {
	var o owner
	require.NoError(t, table.Parse(&o, "calls", "1_000"))
	require.NoError(t, table.Parse(&o, "wait", "1m30s"))
	require.NoError(t, table.Parse(&o, "bytes", "64MiB"))
	require.Equal(t, owner{Calls: 1000, Wait: 90 * time.Second, Bytes: 64 << 20}, o)
	require.Equal(t, map[string]string{"calls": "1000", "wait": "1m30s", "bytes": "64MiB"}, table.Map(&o))

	err := table.Parse(&o, "nope", "1")
	require.ErrorIs(t, err, setting.ErrUnknownKey)
	require.EqualError(t, err, `unknown setting "nope" (known: calls, wait, bytes)`)
	require.EqualError(t, table.Parse(&o, "wait", "-1s"), `"-1s" must not be negative`)
	require.EqualError(t, table.Parse(&o, "bytes", "lots"), `"lots" is not a size (write e.g. 4096, 512KiB or 64MiB)`)
	require.EqualError(t, table.Parse(&o, "calls", "3000000000"), `"3000000000" is not a whole number (at most 2147483647)`)

	d := owner{}
	table.WithDefaults(&d)
	require.Equal(t, owner{Calls: 10, Wait: time.Second, Bytes: 1 << 20}, d)
	require.Equal(t, "1536KiB", setting.FormatSize(1536<<10))
	require.Equal(t, "1000", setting.FormatSize(1000))
}

func TestCheck(t *testing.T) {
	err := table.Check(&owner{Calls: 1, Wait: 1, Bytes: 10})
	var ke *setting.KeyError
	require.True(t, errors.As(err, &ke))
	require.Equal(t, "bytes", ke.Key)
	require.EqualError(t, err, "bytes (10) must be at least 1KiB")
	require.EqualError(t, table.Check(&owner{Calls: -1, Bytes: 1 << 10}), "calls (-1) must not be negative")
	require.EqualError(t, table.Check(&owner{Bytes: 2 << 30}), "bytes (2GiB) must be at most 1GiB")
	require.NoError(t, table.Check(&owner{Bytes: 1 << 30}))
}

// TestTighten: a request may lower any setting; it may raise one only up
// to a ceiling that is set; zero request fields keep the base.
func TestTighten(t *testing.T) {
	base := owner{Calls: 10, Wait: time.Second, Bytes: 1 << 20}
	got, err := table.Tighten(base, owner{Calls: 3}, owner{})
	require.NoError(t, err)
	require.Equal(t, owner{Calls: 3, Wait: time.Second, Bytes: 1 << 20}, got)

	_, err = table.Tighten(base, owner{Calls: 11}, owner{})
	require.EqualError(t, err, "calls 11 is above this server's value of 10")
	got, err = table.Tighten(base, owner{Calls: 11}, owner{Calls: 20})
	require.NoError(t, err)
	require.Equal(t, 11, got.Calls)
	_, err = table.Tighten(base, owner{Wait: 3 * time.Second}, owner{Wait: 2 * time.Second})
	require.EqualError(t, err, "wait 3s is above the operator's limit of 2s")

	require.NoError(t, table.Below(owner{Calls: 10}, base))
	require.EqualError(t, table.Below(owner{Calls: 9}, base), "calls 9 is below the configured value 10; raise it or lower the configured value")
	c := owner{Calls: 20}
	table.Or(&c, base)
	require.Equal(t, owner{Calls: 20, Wait: time.Second, Bytes: 1 << 20}, c)
}
