// Package barchart draws the grouped bar charts of ratios that the
// benchmark reports put beside their tables (docs/benchmarks.md): one
// bar per series in each group, and a reference line at 1.0.
package barchart

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// A Series is one peer's bars: one value per group.
type Series struct {
	Label  string
	Color  color.RGBA
	Values []float64 // NaN for a missing value
}

// A BarChart is a grouped bar chart of ratios, with a reference line at
// 1.0.
type BarChart struct {
	Title, Subtitle string
	Groups          []string
	Series          []Series
	RefLabel        string // the label of the line at 1.0
	Empty           string // what the chart says when it has no group
}

// The chart's fonts.
var (
	regularFont = mustParse(goregular.TTF)
	boldFont    = mustParse(gobold.TTF)
)

func mustParse(ttf []byte) *opentype.Font {
	f, err := opentype.Parse(ttf)
	if err != nil {
		panic(err)
	}
	return f
}

func face(f *opentype.Font, size float64) font.Face {
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic(err)
	}
	return fc
}

// canvas draws on an RGBA image.
type canvas struct{ img *image.RGBA }

func (c canvas) rect(x0, y0, x1, y1 int, col color.Color) {
	draw.Draw(c.img, image.Rect(x0, y0, x1, y1), image.NewUniform(col), image.Point{}, draw.Src)
}

func (c canvas) hline(x0, x1, y int, col color.Color, dash int) {
	for x := x0; x < x1; x++ {
		if dash == 0 || (x-x0)/dash%2 == 0 {
			c.img.Set(x, y, col)
		}
	}
}

// text draws s with its baseline at y; align is 'l', 'c' or 'r' about x.
func (c canvas) text(f font.Face, s string, x, y int, align byte, col color.Color) int {
	d := &font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: f}
	w := d.MeasureString(s).Ceil()
	switch align {
	case 'c':
		x -= w / 2
	case 'r':
		x -= w
	}
	d.Dot = fixed.P(x, y)
	d.DrawString(s)
	return w
}

// niceStep is the grid step for values up to max: 0.25, 0.5, 1, 2...
func niceStep(max float64) float64 {
	for _, s := range []float64{0.25, 0.5, 1, 2, 5, 10, 20, 50, 100} {
		if max/s <= 8 {
			return s
		}
	}
	return math.Pow(10, math.Ceil(math.Log10(max/8)))
}

// PNG draws the chart.
func (bc BarChart) PNG() ([]byte, error) {
	const (
		width   = 1200
		height  = 560
		left    = 64
		right   = 64
		top     = 104
		bottom  = 64
		plotW   = width - left - right
		plotH   = height - top - bottom
		barFill = 0.78 // the part of a group's width its bars take
	)
	var (
		ink   = color.RGBA{0x22, 0x22, 0x22, 0xff}
		muted = color.RGBA{0x66, 0x66, 0x66, 0xff}
		grid  = color.RGBA{0xe4, 0xe6, 0xea, 0xff}
		white = color.RGBA{0xff, 0xff, 0xff, 0xff}
	)
	titleFace, subFace := face(boldFont, 19), face(regularFont, 13)
	labelFace, valueFace := face(regularFont, 14), face(regularFont, 11)

	c := canvas{image.NewRGBA(image.Rect(0, 0, width, height))}
	c.rect(0, 0, width, height, white)
	c.text(titleFace, bc.Title, left, 30, 'l', ink)
	c.text(subFace, bc.Subtitle, left, 52, 'l', muted)

	// Legend, one line under the subtitle.
	x := left
	for _, s := range bc.Series {
		c.rect(x, 68, x+14, 82, s.Color)
		x += 20 + c.text(labelFace, s.Label, x+20, 80, 'l', ink) + 28
	}

	maxV := 1.0
	for _, s := range bc.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				maxV = math.Max(maxV, v)
			}
		}
	}
	step := niceStep(maxV * 1.08)
	yMax := math.Ceil(maxV*1.08/step) * step
	y := func(v float64) int { return top + plotH - int(math.Round(v/yMax*plotH)) }

	for v := 0.0; v <= yMax+step/2; v += step {
		c.hline(left, left+plotW, y(v), grid, 0)
		c.text(valueFace, trimZeros(v)+"×", left-8, y(v)+4, 'r', muted)
	}

	n := len(bc.Groups)
	if n == 0 {
		c.text(labelFace, bc.Empty, left+plotW/2, top+plotH/2, 'c', muted)
	} else {
		groupW := float64(plotW) / float64(n)
		barW := groupW * barFill / float64(len(bc.Series))
		for g, name := range bc.Groups {
			gx := float64(left) + float64(g)*groupW + groupW*(1-barFill)/2
			for i, s := range bc.Series {
				x0 := int(math.Round(gx + float64(i)*barW))
				x1 := int(math.Round(gx+float64(i+1)*barW)) - 2
				v := s.Values[g]
				if math.IsNaN(v) {
					c.text(valueFace, "n/a", (x0+x1)/2, y(0)-4, 'c', muted)
					continue
				}
				c.rect(x0, y(v), x1, y(0), s.Color)
				if i > 0 { // the first series is the reference: its bars are all 1.00
					c.text(valueFace, fmt.Sprintf("%.2f", v), (x0+x1)/2, y(v)-4, 'c', ink)
				}
			}
			cx := left + int(math.Round((float64(g)+0.5)*groupW))
			c.text(labelFace, name, cx, y(0)+22, 'c', ink)
		}
	}
	// The floor's line, over the bars.
	c.hline(left, left+plotW, y(1), ink, 6)
	c.text(valueFace, bc.RefLabel, left+plotW+6, y(1)+4, 'l', ink)
	c.hline(left, left+plotW, y(0), ink, 0)

	var buf bytes.Buffer
	if err := png.Encode(&buf, c.img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// trimZeros formats a grid value: 0, 0.5, 1, 1.25.
func trimZeros(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
