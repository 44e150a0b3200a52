// Command scaling runs the built caps binary on generated modules of one-line
// functions from 1 MB to 15 MB (the largest size under the 16 MB limit),
// caps check also on modules of every common kind of declaration
// (gen.Mixed) of the same sizes, and on nested unclosed lists, and reports for each run its wall time, its
// CPU time and its peak resident memory (the process's maxrss), as
// figures per MB of source. These are the process-level figures of issue
// 19's scaling targets; the Go benchmarks (BenchmarkCheckScaling and its
// siblings in cmd/caps) give the in-process times.
//
//	go run ./bench/scaling -caps build/caps [-sizes 1,2,4,15] [-runs 1] [-only fmt] [-o build/scaling.txt]
//
// With -o it also writes each run as a line in the format of `go test
// -bench`, which bench/summary reads:
//
//	BenchmarkProcess/check/15MB 1 <wall> ns/op <MB/s> MB/s <cpu> cpu-MB/s <peak> peak-MB <ratio> rss/src
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/capsulang/caps/bench/gen"
)

// command is one caps command line to measure, with the exit codes that
// count as success.
type command struct {
	name  string
	args  []string
	codes []int
}

var commands = []command{
	{"check", []string{"check"}, []int{0}},
	{"parse", []string{"parse"}, []int{0}},
	{"fmt", []string{"fmt", "--check"}, []int{0, 1}},
}

// measurement is what one run of caps cost.
type measurement struct {
	wall, cpu time.Duration
	peak      int64 // peak resident memory, bytes
}

func main() {
	caps := flag.String("caps", "build/caps", "the caps binary to run")
	sizes := flag.String("sizes", "1,2,4,15", "module sizes in MiB, comma-separated")
	runs := flag.Int("runs", 1, "runs of each measurement; the fastest is reported")
	parens := flag.Int("parens", 100_000, "nested lists in the unclosed-lists runs (0: none)")
	out := flag.String("o", "", "also write the results, in go test -bench format, to this file")
	only := flag.String("only", "", "measure only these commands (comma-separated: check,parse,fmt); the unclosed-lists runs are check's")
	flag.Parse()
	if *only != "" {
		want := map[string]bool{}
		for _, name := range strings.Split(*only, ",") {
			want[strings.TrimSpace(name)] = true
		}
		var cs []command
		for _, c := range commands {
			if want[c.name] {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			fmt.Fprintf(os.Stderr, "scaling: -only %q names none of check, parse, fmt\n", *only)
			os.Exit(2)
		}
		commands = cs
		if !want["check"] {
			*parens = 0
		}
	}

	dir, err := os.MkdirTemp("", "caps-scaling")
	must(err)
	defer os.RemoveAll(dir)
	var lines []string
	report := func(name string, size int, m measurement) {
		mb := float64(size) / 1e6
		fmt.Printf("%-28s %7.2f MB %8.2f s %8.2f s cpu %7.2f MB/s %7.2f cpu-MB/s %7.0f MB peak %6.1fx src\n",
			name, mb, m.wall.Seconds(), m.cpu.Seconds(), mb/m.wall.Seconds(), mb/m.cpu.Seconds(), float64(m.peak)/1e6, float64(m.peak)/float64(size))
		lines = append(lines, fmt.Sprintf("BenchmarkProcess/%s 1 %d ns/op %.2f MB/s %.2f cpu-MB/s %.1f peak-MB %.2f rss/src",
			name, m.wall.Nanoseconds(), mb/m.wall.Seconds(), mb/m.cpu.Seconds(), float64(m.peak)/1e6, float64(m.peak)/float64(size)))
	}
	fmt.Printf("%-28s %10s %10s %14s %12s %16s %12s %10s\n", "run", "source", "wall", "cpu", "MB/s", "cpu-MB/s", "peak RSS", "RSS/src")

	empty := write(dir, "empty.caps", []byte("(module scaling (capsule \"1.0\"))\n"))
	base := measure(*caps, commands[0], empty, *runs)
	fmt.Printf("%-28s %27s %7.0f MB peak (the process's own footprint)\n", commands[0].name+"/empty", "", float64(base.peak)/1e6)
	lines = append(lines, fmt.Sprintf("BenchmarkProcess/%s/empty 1 %d ns/op %.1f peak-MB", commands[0].name, base.wall.Nanoseconds(), float64(base.peak)/1e6))

	for _, s := range strings.Split(*sizes, ",") {
		mib, err := strconv.Atoi(strings.TrimSpace(s))
		must(err)
		src := gen.Functions(mib << 20)
		path := write(dir, fmt.Sprintf("functions-%dMB.caps", mib), src)
		for _, c := range commands {
			report(fmt.Sprintf("%s/%dMB", c.name, mib), len(src), measure(*caps, c, path, *runs))
		}
	}
	for _, c := range commands {
		if c.name != "check" {
			continue
		}
		// Modules of every common kind of declaration (gen.Mixed): most
		// of their text stays whole in a lean check.
		for _, s := range strings.Split(*sizes, ",") {
			mib, err := strconv.Atoi(strings.TrimSpace(s))
			must(err)
			src := gen.Mixed(mib << 20)
			path := write(dir, fmt.Sprintf("mixed-%dMB.caps", mib), src)
			report(fmt.Sprintf("check/mixed-%dMB", mib), len(src), measure(*caps, c, path, *runs))
		}
	}
	if *parens > 0 {
		check := command{"check", []string{"check"}, []int{0, 1}}
		for _, p := range []struct {
			name string
			src  []byte
		}{
			{fmt.Sprintf("unclosed-%dk", *parens/1000), gen.Unclosed(*parens)},
			{fmt.Sprintf("unclosed-%dk", 2**parens/1000), gen.Unclosed(2 * *parens)},
			{fmt.Sprintf("closed-%dk", *parens/1000), gen.Closed(*parens)},
		} {
			path := write(dir, p.name+".caps", p.src)
			report("check/"+p.name, len(p.src), measure(*caps, check, path, *runs))
		}
	}
	if *out != "" {
		must(os.WriteFile(*out, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	}
}

// measure runs caps with c's arguments on path runs times and returns the
// fastest run's figures (the peak memory is the largest seen).
func measure(caps string, c command, path string, runs int) measurement {
	var best measurement
	for i := 0; i < max(runs, 1); i++ {
		m := once(caps, c, path)
		if i == 0 || m.wall < best.wall {
			best.wall, best.cpu = m.wall, m.cpu
		}
		best.peak = max(best.peak, m.peak)
	}
	return best
}

// once runs caps once, discarding its output.
func once(caps string, c command, path string) measurement {
	cmd := exec.Command(caps, append(append([]string(nil), c.args...), path)...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 || !contains(c.codes, code) {
		fmt.Fprintf(os.Stderr, "scaling: %s %s %s: exit %d (%v)\n", caps, strings.Join(c.args, " "), path, code, err)
		os.Exit(1)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return measurement{wall: wall}
	}
	peak := int64(ru.Maxrss) * 1024 // kilobytes on Linux
	if runtime.GOOS == "darwin" {
		peak = int64(ru.Maxrss) // bytes on macOS
	}
	return measurement{wall: wall, cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), peak: peak}
}

func write(dir, name string, src []byte) string {
	path := filepath.Join(dir, name)
	must(os.WriteFile(path, src, 0o644))
	return path
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaling:", err)
		os.Exit(1)
	}
}
