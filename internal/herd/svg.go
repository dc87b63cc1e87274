package herd

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
)

// Chart geometry, in SVG user units.
const (
	svgWidth    = 960
	marginLeft  = 64
	marginRight = 24
	headerH     = 100 // title and three lines of explanation
	panelTitleH = 22  // one line above each panel
	panelH      = 70
	panelGap    = 14
	footerH     = 46 // x axis labels and caption
)

// SVG draws results as a chart: one panel per strategy, stacked, each a bar per window with
// the retries that landed in it. All panels share the time axis (seconds since the clients
// failed) and the count axis (0 to the number of clients), so walls and drizzles compare at
// a glance; each panel's title repeats its row of the table.
func SVG(c Config, results []Result) []byte {
	var last float64
	for _, r := range results {
		last = max(last, r.LastSeconds)
	}
	span := last + c.Window.Seconds()
	step := niceStep(span)
	xMax := math.Ceil(span/step) * step
	plotW := float64(svgWidth - marginLeft - marginRight)
	x := func(sec float64) float64 { return marginLeft + sec/xMax*plotW }
	height := headerH + len(results)*(panelTitleH+panelH+panelGap) + footerH

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", esc("retrygen herd: retries per window for each retry strategy"))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", svgWidth, height)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="17" font-weight="bold">%s</text>`+"\n", marginLeft,
		esc(fmt.Sprintf("Retries per %v window when %d clients fail at the same moment", c.Window, c.Clients)))
	for i, line := range []string{
		fmt.Sprintf("The server stays down. Each client retries %d times (initial delay %v, cap %v); in the Retry-After rows the server sends Retry-After %v.",
			c.Retries, c.Initial, c.Max, c.RetryAfter),
		fmt.Sprintf("Bar height: the retries that land in one window, on the same scale (0 to %d) in every panel.", c.Clients),
		"A tall bar is a wall of retries arriving together; low, wide bars are the same work spread out.",
	} {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#444">%s</text>`+"\n", marginLeft, 44+18*i, esc(line))
	}

	top := float64(headerH)
	for _, r := range results {
		base := top + panelTitleH + panelH
		fmt.Fprintf(&b, `<g class="panel" data-strategy="%s" data-peak="%d" data-total="%d">`+"\n",
			esc(r.Strategy), r.Peak, r.Total)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f"><tspan font-weight="bold">%s</tspan><tspan dx="6" fill="#444">%s</tspan></text>`+"\n",
			marginLeft, top+15, esc(r.Strategy),
			esc(fmt.Sprintf("— peak %d in one window, %d retries over %d windows, last at %.1f s", r.Peak, r.Total, r.Windows, r.LastSeconds)))
		// Frame, the y axis labels and a guide at half the client count.
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="#f6f7f9" stroke="#d0d4da"/>`+"\n",
			marginLeft, base-panelH, plotW, panelH)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e3e8" stroke-dasharray="3 3"/>`+"\n",
			marginLeft, base-panelH/2, marginLeft+plotW, base-panelH/2)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#666">%d</text>`+"\n", marginLeft-6, base-panelH+10, c.Clients)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#666">0</text>`+"\n", marginLeft-6, base)
		barW := max(x(c.Window.Seconds())-x(0), 1)
		for _, w := range r.SortedWindows() {
			n := r.Counts[w]
			h := float64(n) / float64(c.Clients) * panelH
			h = max(h, 1) // a single retry stays visible
			fmt.Fprintf(&b, `<rect class="bar" x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s" data-window="%d" data-count="%d"/>`+"\n",
				x(float64(w)*c.Window.Seconds()), base-h, barW, h, barColor(n, c.Clients), w, n)
		}
		b.WriteString("</g>\n")
		top += panelTitleH + panelH + panelGap
	}

	// The shared time axis.
	axisY := top
	fmt.Fprintf(&b, `<g class="axis">`+"\n")
	for s := 0.0; s <= xMax+step/2; s += step {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`+"\n", x(s), axisY-panelGap, x(s), axisY-panelGap+5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#444">%s</text>`+"\n", x(s), axisY+4, esc(fmtSeconds(s)))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#222">%s</text>`+"\n",
		marginLeft+plotW/2, axisY+24, esc("seconds since every client failed (the same axis in every panel)"))
	b.WriteString("</g>\n</svg>\n")
	return b.Bytes()
}

// barColor shades a bar from blue (a trickle) to red (every client at once).
func barColor(n, clients int) string {
	f := min(float64(n)/float64(clients), 1)
	r := int(60 + f*(214-60))
	g := int(120 - f*(120-40))
	bl := int(200 - f*(200-40))
	return fmt.Sprintf("#%02x%02x%02x", r, g, bl)
}

// niceStep picks a tick step that gives at most about 12 ticks over span seconds.
func niceStep(span float64) float64 {
	for _, s := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600} {
		if span/s <= 12 {
			return s
		}
	}
	return math.Ceil(span/12/3600) * 3600
}

func fmtSeconds(s float64) string {
	return strconv.FormatFloat(math.Round(s*1000)/1000, 'f', -1, 64) + " s"
}

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
