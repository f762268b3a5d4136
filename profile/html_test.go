package profile

import (
	"strings"
	"testing"
)

func TestWriteHTML(t *testing.T) {
	cfg, prog := loopProgram(t)
	prog.Lines[3].Source = "return x < 3 && y;" // escaped in the page
	prog.Lines[2].Line = 7                      // lines 3 to 6 hold no instruction
	prog.Lines[3].Line = 8
	r := NewRecorder(cfg)
	recordLoop(r)
	reports := []Report{
		{Object: "/objs/loop.o", Program: "count", Verdict: "rejected", Error: "BPF program is too large", Budget: []string{"the budget went to the loop"}, Profile: Build(r, prog)},
		{Object: "/objs/loop.o", Program: "refused", Verdict: "rejected"},
	}
	var b strings.Builder
	if err := WriteHTML(&b, reports); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<a href="#p0">loop.o: count</a>`,
		`<p class="err">BPF program is too large</p>`,
		`<p class="budget">the budget went to the loop</p>`,
		// The hottest line (x++, three visits, first of the two) is
		// marked, and its details hold its instruction and reason.
		`<tr class="src hottest" id="p0-l1"`,
		`<tr class="detail" id="p0-l1-d" hidden>`,
		`<code>r0 &#43;= 1</code>`,
		`<li>2 × R0&#39;s range differs (0 vs 1) from the same path&#39;s earlier loop iteration</li>`,
		`<td class="n">⋯</td>`,
		`return x &lt; 3 &amp;&amp; y;`,
		`<h3>loops</h3>`,
		// The CFG: three blocks, the loop's framed with its header.
		`<svg class="cfg"`,
		`<g class="block in-loop" data-start="1">`,
		`loop @1 ×2</text>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "refused") {
		t.Errorf("a program without a profile has a section")
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") || strings.Contains(page, " src=") {
		t.Errorf("the page loads something from elsewhere")
	}
}
