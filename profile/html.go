package profile

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"strconv"
)

// Report is one program's profile with what identifies it: an entry of
// vercheck --profile-out's file and a section of its --html page.
type Report struct {
	Object  string `json:"object"`
	Program string `json:"program"`
	Verdict string `json:"verdict"`
	Error   string `json:"error,omitempty"`
	// Budget explains a rejection at a complexity limit (Profile.Budget).
	Budget []string `json:"budget,omitempty"`
	// Profile is nil (JSON null) for a program refused before its walk.
	Profile *Profile `json:"profile"`
}

//go:embed html.tmpl
var htmlSource string

// htmlTemplate renders the page; everything it needs (styles, the
// script that opens a line's details) is inline, so the page works
// offline, from a file or an attachment.
var htmlTemplate = template.Must(template.New("profile").Funcs(template.FuncMap{
	"group": group,
	"base":  filepath.Base,
}).Parse(htmlSource))

// WriteHTML writes one self-contained page showing every report: per
// program its totals, its source lines (or, without line info, its
// instructions) coloured by visits, the hottest highlighted, each opening
// on a click to its instructions and miss reasons; its loops and
// subprograms.
func WriteHTML(w io.Writer, reports []Report) error {
	page := htmlPage{}
	for i, r := range reports {
		if r.Profile == nil {
			continue
		}
		page.Programs = append(page.Programs, newHTMLProgram(fmt.Sprintf("p%d", i), r))
	}
	if err := htmlTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("write html: %w", err)
	}
	return nil
}

// htmlPage is the template's data.
type htmlPage struct {
	Programs []htmlProgram
}

// htmlProgram is one program's section.
type htmlProgram struct {
	Report
	ID string
	// Files hold the source lines by file; Insns the instructions when
	// the program has no line info.
	Files []htmlFile
	Insns []htmlRow
	// CFG is the control-flow graph drawn as inline SVG.
	CFG template.HTML
}

// htmlFile is one source file's lines.
type htmlFile struct {
	Name string
	Rows []htmlRow
}

// htmlRow is one source line or instruction of the page. A Gap row stands
// for lines with no instructions between two rows.
type htmlRow struct {
	Gap bool
	// ID names the row; its details row is ID + "-d".
	ID      string
	Label   string
	Text    string
	Share   string
	Heat    template.CSS
	Hottest bool
	Counters
	Insns   []Insn
	Reasons []Reason
}

// newHTMLProgram lays out one report.
func newHTMLProgram(id string, r Report) htmlProgram {
	p := r.Profile
	hp := htmlProgram{Report: r, ID: id, CFG: cfgSVG(id, p)}
	maxVisits := 0
	for _, in := range p.Insns {
		maxVisits = max(maxVisits, in.Visits)
	}
	if len(p.Lines) == 0 {
		hp.Insns = hp.insnRows(maxVisits)
		return hp
	}
	maxLine := 0
	for _, l := range p.Lines {
		maxLine = max(maxLine, l.Visits)
	}
	hottest := topBy(p.Lines, 1, func(l Line) int { return l.Visits })
	byInsn := map[int]Insn{}
	for _, in := range p.Insns {
		byInsn[in.Insn] = in
	}
	for i, l := range p.Lines {
		if len(hp.Files) == 0 || hp.Files[len(hp.Files)-1].Name != l.File {
			hp.Files = append(hp.Files, htmlFile{Name: l.File})
		} else if prev := p.Lines[i-1]; prev.Line+1 < l.Line {
			f := &hp.Files[len(hp.Files)-1]
			f.Rows = append(f.Rows, htmlRow{Gap: true})
		}
		row := htmlRow{ID: fmt.Sprintf("%s-l%d", id, i), Label: strconv.Itoa(l.Line), Text: l.Source, Share: p.share(l.Visits),
			Heat: heat(l.Visits, maxLine), Counters: l.Counters, Reasons: l.MissReasons,
			Hottest: len(hottest) > 0 && hottest[0].File == l.File && hottest[0].Line == l.Line}
		for _, j := range l.Insns {
			row.Insns = append(row.Insns, byInsn[j])
		}
		f := &hp.Files[len(hp.Files)-1]
		f.Rows = append(f.Rows, row)
	}
	return hp
}

// insnRows lays out the visited instructions of a program without line
// info.
func (hp *htmlProgram) insnRows(maxVisits int) []htmlRow {
	p := hp.Profile
	hottest := topBy(p.Insns, 1, func(i Insn) int { return i.Visits })
	var rows []htmlRow
	for _, in := range p.Insns {
		rows = append(rows, htmlRow{ID: fmt.Sprintf("%s-i%d", hp.ID, in.Insn), Label: strconv.Itoa(in.Insn), Text: in.Text,
			Share: p.share(in.Visits), Heat: heat(in.Visits, maxVisits), Counters: in.Counters, Reasons: in.MissReasons,
			Insns: []Insn{in}, Hottest: len(hottest) > 0 && hottest[0].Insn == in.Insn})
	}
	return rows
}

// heat is the background of a row with n visits when the hottest has
// most: a logarithmic scale, so that a line visited ten times stands out
// from one never visited even next to one visited a million times.
func heat(n, most int) template.CSS {
	if n == 0 || most == 0 {
		return ""
	}
	return template.CSS("background-color: " + heatColor(n, most))
}

// heatColor is the colour of n visits when the hottest has most ("" for
// none), shared by the source lines and the CFG's blocks.
func heatColor(n, most int) string {
	if n == 0 || most == 0 {
		return ""
	}
	a := math.Log1p(float64(n)) / math.Log1p(float64(most))
	return fmt.Sprintf("rgba(230, 80, 20, %.2f)", 0.08+0.62*a)
}
