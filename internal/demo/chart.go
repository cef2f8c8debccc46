package demo

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/airlockrt/airlock/toolbox"
)

// ChartIn is the input of render_chart.
type ChartIn struct {
	Values []float64 `json:"values" jsonschema:"bar heights, 1 to 256 numbers"`
	Width  int       `json:"width,omitzero" jsonschema:"image width in pixels, 16 to 1024; default 320"`
	Height int       `json:"height,omitzero" jsonschema:"image height in pixels, 16 to 1024; default 200"`
}

// ChartOut is the JSON part of render_chart's result; the PNG is its media.
type ChartOut struct {
	Width  int `json:"width"`
	Height int `json:"height"`
	Bars   int `json:"bars"`
}

var (
	chartBackground = color.RGBA{0xff, 0xff, 0xff, 0xff}
	chartAxis       = color.RGBA{0x33, 0x33, 0x33, 0xff}
	chartBars       = []color.RGBA{{0x2b, 0x6c, 0xb0, 0xff}, {0xe0, 0x7b, 0x39, 0xff}}
)

func renderChart(ctx context.Context, in ChartIn) (toolbox.MediaResult[ChartOut], error) {
	var none toolbox.MediaResult[ChartOut]
	w, h := in.Width, in.Height
	if w == 0 {
		w = 320
	}
	if h == 0 {
		h = 200
	}
	switch {
	case len(in.Values) < 1 || len(in.Values) > 256:
		return none, fmt.Errorf("values must hold 1 to 256 numbers, got %d", len(in.Values))
	case w < 16 || w > 1024 || h < 16 || h > 1024:
		return none, fmt.Errorf("width and height must be 16 to 1024 pixels, got %dx%d", w, h)
	}
	img := drawBars(in.Values, w, h)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return none, fmt.Errorf("encoding the PNG: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return none, err
	}
	return toolbox.MediaResult[ChartOut]{
		Value: ChartOut{Width: w, Height: h, Bars: len(in.Values)},
		Media: []toolbox.Media{{MIME: "image/png", Data: buf.Bytes()}},
	}, nil
}

// drawBars draws one bar per value above (or below) a zero baseline, scaled
// to the largest magnitude, with a 4-pixel margin.
func drawBars(values []float64, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill(img, img.Bounds(), chartBackground)
	const margin = 4
	hi, lo := 0.0, 0.0
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		hi, lo = max(hi, v), min(lo, v)
	}
	span := hi - lo
	plotH := h - 2*margin
	baseline := margin + plotH
	if span > 0 {
		baseline = margin + int(math.Round(float64(plotH)*hi/span))
	}
	slot := float64(w-2*margin) / float64(len(values))
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) || span == 0 {
			continue
		}
		x0 := margin + int(math.Round(float64(i)*slot+slot*0.1))
		x1 := margin + int(math.Round(float64(i+1)*slot-slot*0.1))
		if x1 <= x0 {
			x1 = x0 + 1
		}
		top := baseline - int(math.Round(float64(plotH)*v/span))
		y0, y1 := min(top, baseline), max(top, baseline)
		fill(img, image.Rect(x0, y0, x1, y1), chartBars[i%len(chartBars)])
	}
	fill(img, image.Rect(margin, baseline, w-margin, baseline+1), chartAxis)
	return img
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}
