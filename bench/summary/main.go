// Command summary reads `go test -bench` output (build/bench.txt) and
// prints the figures the issues set targets for, with the target, whether
// it is met, and ratios against the named peers.
//
//	go run ./bench/summary build/bench.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

type result struct {
	nsPerOp float64
	mbPerS  float64
	allocs  float64
}

var lineRE = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) MB/s)?(?:\s+[\d.]+ B/op)?(?:\s+([\d.]+) allocs/op)?`)

func main() {
	path := "build/bench.txt"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(2)
	}
	defer f.Close()
	res := map[string]result{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		var r result
		r.nsPerOp, _ = strconv.ParseFloat(m[2], 64)
		if m[3] != "" {
			r.mbPerS, _ = strconv.ParseFloat(m[3], 64)
		}
		if m[4] != "" {
			r.allocs, _ = strconv.ParseFloat(m[4], 64)
		}
		res[m[1]] = r
	}
	ms := func(name string) (float64, bool) {
		r, ok := res[name]
		return r.nsPerOp / 1e6, ok
	}
	row := func(what, measured, target string, met bool, note string) {
		status := "met"
		if !met {
			status = "NOT MET"
		}
		if target == "" {
			status = ""
		}
		fmt.Printf("%-44s %-16s %-12s %-8s %s\n", what, measured, target, status, note)
	}
	fmt.Printf("%-44s %-16s %-12s %-8s %s\n", "measure", "measured", "target", "", "peer / note")
	if r, ok := res["BenchmarkParse10k"]; ok {
		note := ""
		if raw, ok := res["BenchmarkTreeSitterParse10k"]; ok {
			note = fmt.Sprintf("tree-sitter C alone: %.1f MB/s (ours at %.0f%% of it)", raw.mbPerS, 100*r.mbPerS/raw.mbPerS)
		}
		row("full parse, 10k lines (to our CST)", fmt.Sprintf("%.1f MB/s", r.mbPerS), ">= 10 MB/s", r.mbPerS >= 10, note)
	}
	if v, ok := ms("BenchmarkReparse10k"); ok {
		note := ""
		if w, ok := ms("BenchmarkIncrementalEdit10k"); ok {
			note = fmt.Sprintf("with our CST rebuilt: %.2f ms", w)
		}
		row("incremental reparse, 1-char edit, 10k lines", fmt.Sprintf("%.2f ms", v), "< 1 ms", v < 1, note)
	}
	if v, ok := ms("BenchmarkBuild10k"); ok {
		row("read + AST build, 10k lines", fmt.Sprintf("%.2f ms", v), "< 10 ms", v < 10, "")
	}
	if v, ok := ms("BenchmarkCheck10k"); ok {
		row("check, 10k lines (after parsing)", fmt.Sprintf("%.2f ms", v), "< 30 ms", v < 30, "")
	}
	if v, ok := ms("BenchmarkHash"); ok {
		row("semantic hash, 10k lines", fmt.Sprintf("%.2f ms", v), "", true, "")
	}
	if v, ok := ms("BenchmarkFormat"); ok {
		row("format, 10k lines", fmt.Sprintf("%.2f ms", v), "", true, "")
	}
	for _, n := range []struct{ bench, what string }{{"BenchmarkAbs", "interpreter: abs"}, {"BenchmarkFib20", "interpreter: fib(20)"}, {"BenchmarkRecord", "interpreter: build a record"}} {
		if r, ok := res[n.bench]; ok {
			row(n.what, fmtNs(r.nsPerOp), "", true, fmt.Sprintf("%.0f allocs/op", r.allocs))
		}
	}
	// The compiled speed-up on the loop-heavy benchmarks, and the cost of
	// one call from Go into wazero (not a speed-up: shown in ns).
	for _, p := range []struct{ name, what string }{
		{"Fib", "fib(25)"},
		{"Loop", "loop, 2 divisions each"},
		{"LoopArith", "loop, + - * only"},
	} {
		r, ok1 := res["Benchmark"+p.name+"Interp"]
		w, ok2 := res["Benchmark"+p.name+"Wasm"]
		if ok1 && ok2 && w.nsPerOp > 0 {
			x := r.nsPerOp / w.nsPerOp
			row("wasm/interpreter: "+p.what, fmt.Sprintf("%.1fx", x), ">= 20x", x >= 20, fmt.Sprintf("%s vs %s", fmtNs(w.nsPerOp), fmtNs(r.nsPerOp)))
		}
	}
	if w, ok := res["BenchmarkCallOverheadWasm"]; ok {
		note := ""
		if r, ok := res["BenchmarkCallOverheadInterp"]; ok {
			note = "interpreter: " + fmtNs(r.nsPerOp)
		}
		row("one call from Go into wazero", fmtNs(w.nsPerOp), "", true, note)
	}
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}
