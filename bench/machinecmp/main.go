// Command machinecmp prints the machine runtime's benchmark figures
// against their targets, and runs the XState side of the stepping
// comparison (bench/xstate/bench.mjs, node) right after the Go side, to
// print the ratio:
//
//	go run ./bench/machinecmp build/bench.txt
//
// The Go figures come from `go test -bench` output: BenchmarkDryRunStep
// (runtime/machine), BenchmarkLedgeredStep and BenchmarkReplay
// (runtime/ledger). Without node or bench/xstate/node_modules (npm ci
// there) the XState rows are skipped.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

var lineRE = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)
var metricRE = regexp.MustCompile(`([\d.e+]+) (transitions/s|events/s)`)
var xstateRE = regexp.MustCompile(`^xstate (\S+): ([\d.]+) ns/op`)

func main() {
	path := "build/bench.txt"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "machinecmp:", err)
		os.Exit(2)
	}
	ns := map[string]float64{}
	rate := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns[m[1]], _ = strconv.ParseFloat(m[2], 64)
		if r := metricRE.FindStringSubmatch(sc.Text()); r != nil {
			rate[m[1]], _ = strconv.ParseFloat(r[1], 64)
		}
	}
	row := func(what, measured, target, status, note string) {
		fmt.Printf("%-46s %-18s %-16s %-8s %s\n", what, measured, target, status, note)
	}
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT MET"
	}
	row("measure", "measured", "target", "", "note")
	ours, haveOurs := ns["BenchmarkDryRunStep"]
	if haveOurs {
		r := 1e9 / ours
		row("dry-run stepping, ClaimReview (caps)", perSec(r), ">= 1,000,000/s", met(r >= 1e6), fmt.Sprintf("%.0f ns/event", ours))
	}
	if r, ok := rate["BenchmarkLedgeredStep"]; ok {
		row("ledgered stepping, group commit + fsync", perSec(r), ">= 100,000/s", met(r >= 1e5), fmt.Sprintf("%.1f µs/event", ns["BenchmarkLedgeredStep"]/1e3))
	}
	if r, ok := rate["BenchmarkReplay"]; ok {
		row("replay (verify, re-execute, compare)", perSec(r), ">= 500,000/s", met(r >= 5e5), "")
	}
	x, err := runXState()
	if err != nil {
		row("XState v5 transition(), same machine/events", "skipped", "", "", err.Error())
		return
	}
	if v, ok := x["transition()"]; ok {
		row("XState v5 transition(), same machine/events", perSec(1e9/v), "", "", fmt.Sprintf("%.0f ns/event (node)", v))
		if haveOurs {
			ratio := v / ours
			row("caps dry-run / XState transition()", fmt.Sprintf("%.1fx", ratio), ">= 10x", met(ratio >= 10), "")
		}
	}
	if v, ok := x["actor.send()"]; ok {
		row("XState v5 actor.send()", perSec(1e9/v), "", "", fmt.Sprintf("%.0f ns/event; caps is %.1fx", v, v/ours))
	}
}

// runXState runs bench/xstate/bench.mjs and returns ns/op by measurement.
func runXState() (map[string]float64, error) {
	dir := filepath.Join("bench", "xstate")
	if _, err := exec.LookPath("node"); err != nil {
		return nil, fmt.Errorf("no node on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "xstate")); err != nil {
		return nil, fmt.Errorf("run `npm ci` in %s first", dir)
	}
	out, err := exec.Command("node", filepath.Join(dir, "bench.mjs")).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("node bench.mjs: %v: %s", err, strings.TrimSpace(string(out)))
	}
	res := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		if m := xstateRE.FindStringSubmatch(line); m != nil {
			res[m[1]], _ = strconv.ParseFloat(m[2], 64)
		}
	}
	return res, nil
}

func perSec(r float64) string {
	s := strconv.FormatFloat(r, 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "/s"
}
