// Command vercheck-rejectcov lists the verifier's rejection sites that a
// coverage profile never reached: the checks no test or fuzz run exercised
// yet. Build the fuzzer with coverage, run it, and read its profile:
//
//	go build -cover -coverpkg=./... -o /tmp/vm ./cmd/vercheck-mutate
//	GOCOVERDIR=/tmp/cov /tmp/vm -duration 10m testdata/progs ../shared/corpus
//	go tool covdata textfmt -i=/tmp/cov -o /tmp/cov.out
//	go run ./cmd/vercheck-rejectcov /tmp/cov.out verifier
//
// Several directories may be named (verifier ctxaccess). A rejection site
// is a call of a method named reject or reject<Something>
// (rejectOutOfRange, rejectEINVAL), a RejectError composite literal, or,
// in a function whose results are (Access, bool) (a context access check
// of package ctxaccess: its false is the kernel's "invalid bpf_context
// access"), a return statement whose last result is false. A site counts
// as reached when a covered block of the profile contains its line.
package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vercheck-rejectcov", flag.ContinueOnError)
	fs.SetOutput(stderr)
	all := fs.Bool("all", false, "list every unreached site, not the first few per file")
	if err := fs.Parse(args); err != nil || fs.NArg() < 2 {
		fmt.Fprintln(stderr, "usage: vercheck-rejectcov [-all] PROFILE DIR...")
		return 2
	}
	blocks, err := readProfile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-rejectcov: %v\n", err)
		return 2
	}
	var sites []site
	for _, dir := range fs.Args()[1:] {
		ss, err := rejectSites(dir)
		if err != nil {
			fmt.Fprintf(stderr, "vercheck-rejectcov: %v\n", err)
			return 2
		}
		sites = append(sites, ss...)
	}
	report(stdout, sites, blocks, *all)
	return 0
}

// block is one counted block of a coverage profile, by line.
type block struct {
	start, end int
	count      int
}

// profileLine matches "path/file.go:10.2,12.3 2 5".
var profileLine = regexp.MustCompile(`^(.+\.go):(\d+)\.\d+,(\d+)\.\d+ \d+ (\d+)$`)

// readProfile reads a text coverage profile into blocks per file base
// path ("dir/file.go" suffixes are matched later).
func readProfile(path string) (map[string][]block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]block{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := profileLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		start, _ := strconv.Atoi(m[2])
		end, _ := strconv.Atoi(m[3])
		n, _ := strconv.Atoi(m[4])
		out[m[1]] = append(out[m[1]], block{start, end, n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no coverage blocks", path)
	}
	return out, nil
}

// site is one rejection call: where, and the message's format string.
type site struct {
	file string
	line int
	msg  string
}

// rejectSites finds the rejection sites (see the package doc) in the Go
// files of dir (tests left out).
func rejectSites(dir string) ([]site, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []site
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			return nil, err
		}
		add := func(n ast.Node, msg string) {
			out = append(out, site{file: f, line: fset.Position(n.Pos()).Line, msg: msg})
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && isRejectMethod(sel.Sel.Name) {
					add(n, firstString(n))
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "RejectError" {
					add(n, "")
				}
			case *ast.FuncDecl:
				if returnsAccessCheck(n.Type) && n.Body != nil {
					ast.Inspect(n.Body, func(m ast.Node) bool {
						if ret, ok := m.(*ast.ReturnStmt); ok && len(ret.Results) > 0 && isFalse(ret.Results[len(ret.Results)-1]) {
							add(ret, "invalid bpf_context access ("+n.Name.Name+")")
						}
						return true
					})
				}
			}
			return true
		})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no rejection sites", dir)
	}
	return out, nil
}

// isRejectMethod reports whether name is reject or reject followed by
// an upper-case word (rejectOutOfRange), not rejected.
func isRejectMethod(name string) bool {
	rest, ok := strings.CutPrefix(name, "reject")
	return ok && (rest == "" || rest[0] >= 'A' && rest[0] <= 'Z')
}

// returnsAccessCheck reports whether a function of type ft returns
// (Access, bool): a context access check.
func returnsAccessCheck(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) != 2 {
		return false
	}
	first, ok1 := ft.Results.List[0].Type.(*ast.Ident)
	second, ok2 := ft.Results.List[1].Type.(*ast.Ident)
	return ok1 && ok2 && first.Name == "Access" && second.Name == "bool"
}

// isFalse reports whether e is the identifier false.
func isFalse(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "false"
}

// firstString returns the first string literal argument of call, or "".
func firstString(call *ast.CallExpr) string {
	for _, a := range call.Args {
		if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				return s
			}
		}
	}
	return ""
}

// reached reports whether a covered block of the profile contains s.
func reached(s site, blocks map[string][]block) bool {
	slashed := filepath.ToSlash(s.file)
	for path, bs := range blocks {
		if !strings.HasSuffix(path, "/"+slashed) && path != slashed {
			continue
		}
		for _, b := range bs {
			if b.start <= s.line && s.line <= b.end && b.count > 0 {
				return true
			}
		}
	}
	return false
}

// maxListed is how many unreached sites are listed per file without -all.
const maxListed = 8

func report(w io.Writer, sites []site, blocks map[string][]block, all bool) {
	byFile := map[string][]site{}
	total := map[string]int{}
	hit := 0
	for _, s := range sites {
		total[s.file]++
		if reached(s, blocks) {
			hit++
			continue
		}
		byFile[s.file] = append(byFile[s.file], s)
	}
	fmt.Fprintf(w, "rejection sites reached: %d of %d (%d never)\n", hit, len(sites), len(sites)-hit)
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(byFile[b]), len(byFile[a])), cmp.Compare(a, b))
	})
	for _, f := range files {
		ss := byFile[f]
		fmt.Fprintf(w, "%s: %d of %d never reached\n", f, len(ss), total[f])
		for i, s := range ss {
			if !all && i == maxListed {
				fmt.Fprintf(w, "    ... %d more (-all)\n", len(ss)-maxListed)
				break
			}
			fmt.Fprintf(w, "    %d: %q\n", s.line, s.msg)
		}
	}
}
