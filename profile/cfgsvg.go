package profile

import (
	"fmt"
	"html"
	"html/template"
	"strings"
)

// Layout of the drawn control-flow graph, in pixels.
const (
	svgBlockW   = 230 // block width
	svgBlockH   = 20  // block height
	svgGap      = 12  // vertical space between blocks
	svgMargin   = 150 // room on each side for the edges' arcs
	svgSubGap   = 28  // extra space before a subprogram, for its name
	svgArcStep  = 6   // how much wider an arc gets per block it spans
	maxSVGBlock = 2000
)

// cfgSVG draws the program's control-flow graph as one inline SVG: the
// basic blocks in program order, one column, filled by visits on the
// scale of the source lines; fall-through edges straight down, forward
// jumps arcing on the right, back-edges (the loops) on the left in red;
// each loop's blocks framed by a band naming its header and iterations.
// Everything is drawn here, so the page needs no script or library.
func cfgSVG(id string, p *Profile) template.HTML {
	if len(p.Blocks) == 0 {
		return ""
	}
	if len(p.Blocks) > maxSVGBlock {
		return template.HTML(fmt.Sprintf(`<p class="muted">%d basic blocks: too many to draw.</p>`, len(p.Blocks)))
	}
	most := 0
	for _, b := range p.Blocks {
		most = max(most, b.Visits)
	}
	ys := blockYs(p.Blocks)
	height := ys[len(ys)-1] + svgBlockH + svgGap
	width := svgBlockW + 2*svgMargin
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="cfg" width="%d" height="%d" viewBox="0 0 %d %d">`, width, height, width, height)
	fmt.Fprintf(&s, `<defs><marker id="%[1]s-arrow" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#555"/></marker>`+
		`<marker id="%[1]s-back" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#c00"/></marker></defs>`, id)
	writeLoopBands(&s, p, ys)
	writeSubprogNames(&s, p, ys)
	for i := range p.Blocks {
		writeEdges(&s, id, p.Blocks, ys, i)
	}
	for i, b := range p.Blocks {
		writeBlock(&s, b, ys[i], most, p)
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// blockYs is the top of each block, a gap above each subprogram's first.
func blockYs(blocks []Block) []int {
	ys := make([]int, len(blocks))
	y := svgGap
	for i, b := range blocks {
		if i == 0 || b.Subprog != blocks[i-1].Subprog {
			y += svgSubGap
		}
		ys[i] = y
		y += svgBlockH + svgGap
	}
	return ys
}

// writeBlock draws one block with its range, visits and a tooltip.
func writeBlock(s *strings.Builder, b Block, y, most int, p *Profile) {
	fill := heatColor(b.Visits, most)
	if fill == "" {
		fill = "#fff"
	}
	class := "block"
	if b.Loop != 0 {
		class += " in-loop"
	}
	label := fmt.Sprintf("%d", b.Start)
	if b.End-1 > b.Start {
		label = fmt.Sprintf("%d–%d", b.Start, b.End-1)
	}
	fmt.Fprintf(s, `<g class="%s" data-start="%d"><title>insns %s: %s visits, %d states stored, %d hits, %d misses</title>`,
		class, b.Start, label, group(b.Visits), b.StatesAdded, b.Hits, b.Misses)
	fmt.Fprintf(s, `<rect x="%d" y="%d" width="%d" height="%d" rx="3" fill="%s" stroke="%s"/>`,
		svgMargin, y, svgBlockW, svgBlockH, fill, strokeFor(b))
	fmt.Fprintf(s, `<text x="%d" y="%d">%s · %s</text></g>`, svgMargin+6, y+14, html.EscapeString(label), html.EscapeString(group(b.Visits)))
}

// strokeFor outlines loop blocks in red.
func strokeFor(b Block) string {
	if b.Loop != 0 {
		return "#c00"
	}
	return "#666"
}

// writeEdges draws the edges leaving block i.
func writeEdges(s *strings.Builder, id string, blocks []Block, ys []int, i int) {
	from := ys[i] + svgBlockH
	for _, j := range blocks[i].Succs {
		to := ys[j]
		switch {
		case j == i+1:
			x := svgMargin + svgBlockW/2
			fmt.Fprintf(s, `<line class="edge" x1="%d" y1="%d" x2="%d" y2="%d" stroke="#555" marker-end="url(#%s-arrow)"/>`, x, from, x, to, id)
		case j > i:
			x := svgMargin + svgBlockW
			w := min(svgMargin-10, 16+svgArcStep*(j-i))
			fmt.Fprintf(s, `<path class="edge" d="M%d,%d C%d,%d %d,%d %d,%d" fill="none" stroke="#555" marker-end="url(#%s-arrow)"/>`,
				x, ys[i]+svgBlockH/2, x+w, ys[i]+svgBlockH/2, x+w, to+svgBlockH/2, x, to+svgBlockH/2, id)
		default:
			x := svgMargin
			w := min(svgMargin-10, 16+svgArcStep*(i-j))
			fmt.Fprintf(s, `<path class="edge back" d="M%d,%d C%d,%d %d,%d %d,%d" fill="none" stroke="#c00" marker-end="url(#%s-back)"/>`,
				x, ys[i]+svgBlockH/2, x-w, ys[i]+svgBlockH/2, x-w, to+svgBlockH/2, x, to+svgBlockH/2, id)
		}
	}
}

// writeLoopBands frames the blocks of each loop, from its first block to
// its last, and names its header and iterations.
func writeLoopBands(s *strings.Builder, p *Profile, ys []int) {
	for _, l := range p.Loops {
		first, last := -1, -1
		for i, b := range p.Blocks {
			if b.Loop == l.SCC {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first < 0 {
			continue
		}
		top, bottom := ys[first]-4, ys[last]+svgBlockH+4
		fmt.Fprintf(s, `<g class="loop" data-scc="%d"><title>loop at insn %d: %s iterations, %s visits</title>`, l.SCC, l.Header, group(l.Iterations), group(l.Visits))
		fmt.Fprintf(s, `<rect x="%d" y="%d" width="%d" height="%d" rx="6" fill="rgba(200,0,0,0.06)" stroke="#c00" stroke-dasharray="4 3"/>`,
			svgMargin-6, top, svgBlockW+12, bottom-top)
		fmt.Fprintf(s, `<text x="%d" y="%d" fill="#c00" text-anchor="end">loop @%d ×%s</text></g>`, svgMargin+svgBlockW+svgMargin-4, top+12, l.Header, group(l.Iterations))
	}
}

// writeSubprogNames names each subprogram above its first block.
func writeSubprogNames(s *strings.Builder, p *Profile, ys []int) {
	for i, b := range p.Blocks {
		if i > 0 && b.Subprog == p.Blocks[i-1].Subprog {
			continue
		}
		name := fmt.Sprintf("func#%d", b.Subprog)
		if b.Subprog < len(p.Subprogs) && p.Subprogs[b.Subprog].Name != "" {
			name = p.Subprogs[b.Subprog].Name
		}
		fmt.Fprintf(s, `<text class="subprog" x="%d" y="%d">%s</text>`, svgMargin, ys[i]-8, html.EscapeString(name))
	}
}
