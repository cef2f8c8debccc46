package intl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFlexibleDayPeriod(t *testing.T) {
	tests := []struct {
		dir                     string
		hour, minute, second, n int
		want                    string
	}{
		{"en", 20, 0, 0, 4, "in the evening"},
		{"en", 0, 0, 0, 4, "in the morning"}, // never midnight
		{"en", 12, 0, 0, 5, "n"},
		{"en", 12, 30, 0, 1, "in the afternoon"},
		{"zh-Hant", 0, 0, 0, 1, "凌晨"},
		{"zh-Hant", 12, 0, 0, 4, "中午"}, // zh has no noon: afternoon1
		{"zh-Hant-HK", 5, 30, 0, 4, "早上"},
		{"ko", 20, 0, 0, 4, "저녁"},
		{"ja", 23, 0, 0, 4, "夜中"},
	}
	for _, tt := range tests {
		t.Run(tt.dir+" "+tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, flexibleDayPeriod(tt.dir, tt.hour, tt.minute, tt.second, tt.n))
		})
	}
}

func TestWithDayPeriod(t *testing.T) {
	require.Equal(t, "ah:mm", withDayPeriod("Bh:mm", 0))
	require.Equal(t, "h:mm a", withDayPeriod("h:mm a", 0))
	require.Equal(t, "BBBBh時", withDayPeriod("Bh時", 4))
	require.Equal(t, "h 'B' BBBBB", withDayPeriod("h 'B' a", 5))
}
