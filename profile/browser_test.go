package profile

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browsers are the names a Chromium-based browser goes by.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// browserTimeout bounds the whole browser session.
const browserTimeout = 60 * time.Second

// TestHTMLInBrowser opens the page in a real browser: it loads without a
// console error, the hottest line is highlighted, a click on it shows its
// miss reasons, and the control-flow graph is drawn with its loop marked.
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	browser := ""
	for _, name := range browsers {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skipf("no browser installed (looked for %s)", strings.Join(browsers, ", "))
	}
	page := filepath.Join(t.TempDir(), "profile.html")
	writeLoopPage(t, page)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, browserTimeout)
	defer cancel()

	// Console messages are collected while the page is driven, and read
	// once the session is over.
	var console []string
	msgs := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				console = append(console, m.String())
			}
		}
	}()

	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("tr.hottest"))); err != nil {
		t.Fatalf("browser: %v", err)
	}
	eval := func(js string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](js))
		if err != nil {
			t.Fatalf("browser: %s: %v", js, err)
		}
		return v
	}
	hottest := eval(`document.querySelector('tr.hottest').id`)
	outline := eval(`getComputedStyle(document.querySelector('tr.hottest')).outlineStyle`)
	hiddenBefore := eval(`document.getElementById('p0-l1-d').hidden`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("tr.hottest td.t"))); err != nil {
		t.Fatalf("browser: click: %v", err)
	}
	hiddenAfter := eval(`document.getElementById('p0-l1-d').hidden`)
	reasons := eval(`document.querySelector('#p0-l1-d .reasons').innerText`)
	// The CFG: drawn (a nonzero box), one group per basic block, the
	// loop framed, its back-edge drawn.
	svgHeight := eval(`document.querySelector('#p0 svg.cfg').getBoundingClientRect().height`)
	blocks := eval(`Array.from(document.querySelectorAll('#p0 svg.cfg g.block')).map(g => g.dataset.start + (g.classList.contains('in-loop') ? 'L' : '')).join(',')`)
	loopBox := eval(`document.querySelector('#p0 svg.cfg g.loop rect').getBBox().height`)
	backEdges := eval(`document.querySelectorAll('#p0 svg.cfg path.back').length`)
	cancel()
	<-done

	if hottest != "p0-l1" || outline != "solid" {
		t.Errorf("hottest line %v with outline %v, want p0-l1 outlined solid", hottest, outline)
	}
	if hiddenBefore != true || hiddenAfter != false {
		t.Errorf("details hidden before the click: %v, after: %v; want true, false", hiddenBefore, hiddenAfter)
	}
	if s, _ := reasons.(string); !strings.Contains(s, "R0's range differs (0 vs 1)") {
		t.Errorf("the click shows %q, want the line's miss reasons", reasons)
	}
	if h, _ := svgHeight.(float64); h <= 0 {
		t.Errorf("the CFG's svg has height %v, want it drawn", svgHeight)
	}
	if blocks != "0,1L,3" {
		t.Errorf("CFG blocks %v, want 0,1L,3 (the loop's block marked)", blocks)
	}
	if h, _ := loopBox.(float64); h <= 0 || backEdges != float64(1) {
		t.Errorf("loop frame height %v and %v back-edges, want a frame and one back-edge", loopBox, backEdges)
	}
	if len(console) > 0 {
		t.Errorf("console errors: %q", console)
	}
}

// writeLoopPage writes the page of loopProgram's profile to path.
func writeLoopPage(t *testing.T, path string) {
	t.Helper()
	cfg, prog := loopProgram(t)
	r := NewRecorder(cfg)
	recordLoop(r)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := WriteHTML(f, []Report{{Object: "loop.o", Program: "count", Verdict: "accepted", Profile: Build(r, prog)}}); err != nil {
		t.Fatal(err)
	}
}
