// Command testsummary reads `go test -json` on standard input, prints what
// plain `go test` would (the ok/FAIL line of each package, the output of
// failed tests and build errors), and ends with a summary of the whole
// `make test` run: each step of the Makefile (from -steps FILE, lines
// "NAME<TAB>ran|failed|skipped<TAB>WHY"), the number of packages and
// tests, every skipped test with its reason, and a last line
// "N passed, N failed, N skipped".
//
// It exits 1 when a test or a step failed, and, under CI=true, when
// anything was skipped: in CI every test must run.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// step is one step of make test.
type step struct{ name, status, why string }

type skip struct{ pkg, test, why string }

type summary struct {
	passed, failed, skipped int
	pkgs, pkgsFailed        int
	pkgsNoTests             int
	skips                   []skip
	steps                   []step
}

func main() {
	stepsFile := flag.String("steps", "", "the steps `FILE` that make test wrote")
	flag.Parse()
	var s summary
	if *stepsFile != "" {
		steps, err := readSteps(*stepsFile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
			os.Exit(2)
		}
		s.steps = steps
	}
	if err := s.read(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(2)
	}
	os.Exit(s.print(os.Stdout, inCI()))
}

func inCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "true", "1", "yes":
		return true
	}
	return false
}

func readSteps(path string) ([]step, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []step
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		for len(f) < 3 {
			f = append(f, "")
		}
		out = append(out, step{f[0], f[1], f[2]})
	}
	return out, nil
}

// read consumes the events, printing what plain go test prints.
func (s *summary) read(r io.Reader, w io.Writer) error {
	outputs := map[string][]string{} // package + test -> output lines
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // not an event: a build error from go itself
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" {
				// Package lines: "ok", "FAIL", build errors; the bare
				// PASS/FAIL of the test binary is left out as in go test.
				if o := strings.TrimSpace(e.Output); o != "PASS" && o != "FAIL" && !strings.HasPrefix(o, "=== ") && !strings.HasPrefix(o, "--- ") {
					io.WriteString(w, e.Output)
				}
				continue
			}
			outputs[key] = append(outputs[key], e.Output)
		case "pass":
			if e.Test != "" {
				s.passed++
			} else {
				s.pkgs++
			}
			delete(outputs, key)
		case "fail":
			if e.Test != "" {
				s.failed++
				for _, o := range outputs[key] {
					io.WriteString(w, o)
				}
			} else {
				s.pkgs++
				s.pkgsFailed++
			}
			delete(outputs, key)
		case "skip":
			if e.Test == "" {
				s.pkgs++
				s.pkgsNoTests++
				continue
			}
			s.skipped++
			s.skips = append(s.skips, skip{e.Package, e.Test, skipReason(outputs[key])})
			delete(outputs, key)
		}
	}
	return sc.Err()
}

// skipReason is the message a test gave t.Skip: its last output line
// other than the === and --- lines.
func skipReason(lines []string) string {
	why := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		why = t
	}
	if i := strings.Index(why, ": "); i > 0 && strings.Contains(why[:i], ".go:") {
		why = why[i+2:] // drop "file_test.go:42: "
	}
	if why == "" {
		why = "(no reason given)"
	}
	return why
}

// print writes the summary and returns the exit code.
func (s *summary) print(w io.Writer, ci bool) int {
	fmt.Fprintf(w, "\n===== make test: summary =====\n")
	code := 0
	stepsSkipped := 0
	for _, st := range s.steps {
		line := fmt.Sprintf("%-14s %s", st.name, st.status)
		if st.why != "" {
			line += ": " + st.why
		}
		fmt.Fprintln(w, line)
		switch st.status {
		case "failed":
			code = 1
		case "skipped":
			stepsSkipped++
		}
	}
	gostatus := "ran"
	if s.pkgsFailed > 0 || s.failed > 0 {
		gostatus = "failed"
		code = 1
	}
	fmt.Fprintf(w, "%-14s %s: %d packages (%d failed, %d without tests), %d tests passed, %d failed, %d skipped\n",
		"go test", gostatus, s.pkgs, s.pkgsFailed, s.pkgsNoTests, s.passed, s.failed, s.skipped)
	if len(s.skips) > 0 {
		sort.Slice(s.skips, func(i, j int) bool {
			if s.skips[i].pkg != s.skips[j].pkg {
				return s.skips[i].pkg < s.skips[j].pkg
			}
			return s.skips[i].test < s.skips[j].test
		})
		fmt.Fprintf(w, "skipped tests:\n")
		for _, k := range s.skips {
			fmt.Fprintf(w, "  %s %s: %s\n", strings.TrimPrefix(k.pkg, "github.com/capsulang/caps/"), k.test, k.why)
		}
	}
	if ci && (s.skipped > 0 || stepsSkipped > 0) {
		fmt.Fprintf(w, "CI=true: %d test(s) and %d step(s) were skipped; in CI everything must run (install what they need in .ci/run)\n", s.skipped, stepsSkipped)
		code = 1
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped+stepsSkipped)
	return code
}
