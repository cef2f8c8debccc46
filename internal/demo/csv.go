package demo

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// CSVColumns are the columns make_csv writes, in order.
var CSVColumns = []string{"id", "region", "units", "price"}

var regions = []string{"north", "south", "east", "west"}

// MakeCSVIn is the input of make_csv.
type MakeCSVIn struct {
	Rows int   `json:"rows" jsonschema:"number of data rows, 1 to 200000"`
	Seed int64 `json:"seed,omitzero" jsonschema:"seed of the generator: the same seed gives the same data; default 1"`
}

// makeCSV returns the CSV as a string, so that an offloaded result is stored
// as text and resolves back to the same string in csv_stats.
func makeCSV(ctx context.Context, in MakeCSVIn) (string, error) {
	if in.Rows < 1 || in.Rows > MaxCSVRows {
		return "", fmt.Errorf("rows must be 1 to %d, got %d", MaxCSVRows, in.Rows)
	}
	seed := uint64(in.Seed)
	if in.Seed == 0 {
		seed = 1
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var b strings.Builder
	b.Grow(in.Rows * 28)
	b.WriteString(strings.Join(CSVColumns, ","))
	b.WriteByte('\n')
	for i := 1; i <= in.Rows; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		units := 1 + rng.IntN(100)
		cents := 100 + rng.IntN(9900)
		fmt.Fprintf(&b, "%d,%s,%d,%d.%02d\n", i, regions[rng.IntN(len(regions))], units, cents/100, cents%100)
	}
	return b.String(), nil
}

// CSVStatsIn is the input of csv_stats.
type CSVStatsIn struct {
	CSV string `json:"csv" jsonschema:"CSV text with a header row; pass make_csv's artifact here"`
}

// CSVStatsOut is the result of csv_stats.
type CSVStatsOut struct {
	// Rows counts the data rows (the header excluded).
	Rows int `json:"rows"`
	// Columns are the header's names.
	Columns []string `json:"columns"`
	// Sums holds the sum of every column whose values are all numbers.
	Sums map[string]float64 `json:"sums"`
}

func csvStats(ctx context.Context, in CSVStatsIn) (CSVStatsOut, error) {
	r := csv.NewReader(strings.NewReader(in.CSV))
	r.ReuseRecord = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return CSVStatsOut{}, errors.New("the CSV is empty: it needs a header row")
	}
	if err != nil {
		return CSVStatsOut{}, fmt.Errorf("reading the CSV header: %w", err)
	}
	// ReuseRecord recycles the slice Read returns: keep a copy of the header.
	header = append([]string(nil), header...)
	out := CSVStatsOut{Columns: header, Sums: map[string]float64{}}
	sums := make([]float64, len(header))
	numeric := make([]bool, len(header))
	for i := range numeric {
		numeric[i] = true
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return CSVStatsOut{}, fmt.Errorf("reading the CSV: %w", err)
		}
		out.Rows++
		if out.Rows%4096 == 0 && ctx.Err() != nil {
			return CSVStatsOut{}, ctx.Err()
		}
		for i, f := range rec {
			if !numeric[i] {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				numeric[i] = false
				continue
			}
			sums[i] += v
		}
	}
	for i, name := range header {
		if numeric[i] && out.Rows > 0 {
			// Rounded to micro-units so that sums of prices read as prices.
			out.Sums[name] = math.Round(sums[i]*1e6) / 1e6
		}
	}
	return out, nil
}
