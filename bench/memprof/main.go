// Command memprof profiles the live heap of caps check's pipeline phase by
// phase, on a generated module of one-line functions (bench/gen.Functions,
// the modules bench/scaling measures). After each phase (read, AST, hash,
// check, diagnostics) it collects garbage, prints the live heap, in MB and
// in bytes per source byte, with the process's peak RSS so far, and
// writes a heap profile DIR/PHASE.prof for go tool pprof:
//
//	go run ./bench/memprof [-mb 4] [-o /tmp/memprof]
//	go tool pprof -sample_index=inuse_space -top /tmp/memprof/4check.prof
//
// The phases follow analysis/load's checkSource with caps check's choices
// for a large file: the tree built lean (ast.BuildLean: most function
// bodies deferred, built again from the text when read; phase "2ast"
// then includes the read), a check that keeps no recheck state
// (check.Options.Once), the semantic hash computed once the check has
// resolved the imports, before it checks the declarations
// (check.Options.ImportsResolved). With -whole the tree is built whole
// (read, then built, the CST's node array dropped), as for a file under
// load.Loader.LeanFrom. The loader's soft memory limit during a lean
// check is not set here: the peak RSS printed is the collector's own.
// With -write FILE it only writes the generated module to FILE, for
// measuring the caps binary on it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// keep holds every phase's result until the end, so that each snapshot
// shows what the pipeline holds at that point.
var keep []any

func main() {
	mb := flag.Int("mb", 4, "module size in MiB")
	dir := flag.String("o", filepath.Join(os.TempDir(), "memprof"), "folder for the heap profiles")
	write := flag.String("write", "", "only write the generated module to this file")
	whole := flag.Bool("whole", false, "build the tree whole, not lean")
	flag.Parse()
	src := gen.Functions(*mb << 20)
	if *write != "" {
		must(os.WriteFile(*write, src, 0o644))
		return
	}
	must(os.MkdirAll(*dir, 0o755))
	n := len(src)
	snap(*dir, "0src", n)
	var rd *syntax.Source
	var f *ast.File
	if *whole {
		var err error
		rd, err = syntax.ReadText(src)
		must(err)
		snap(*dir, "1read", n)
		f = ast.Build(rd)
		f.Source.CST = &syntax.CST{Src: src, Lines: f.Source.CST.Lines}
	} else {
		var ok bool
		if f, ok = ast.BuildLean(src); !ok {
			must(fmt.Errorf("the generated module cannot be built lean"))
		}
	}
	snap(*dir, "2ast", n)
	var hash string
	hashed := func(res *check.Result) {
		var err error
		hash, err = load.IROptions(res).Hash(f.Module)
		must(err)
		snap(*dir, "3hash", n)
	}
	res := check.Check(f, check.Options{Path: filepath.Join(*dir, "functions.caps"), Once: true, ImportsResolved: hashed})
	snap(*dir, "4check", n)
	report := diagnose.Run(res)
	snap(*dir, "5diag", n)
	keep = append(keep, src, rd, f, res, hash, report)
}

// snap collects garbage, prints the live heap and the peak RSS, and
// writes a heap profile named after the phase.
func snap(dir, phase string, size int) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var ru syscall.Rusage
	must(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	fmt.Printf("%-7s live %7.1f MB (%5.1f B/source B)  peak RSS %7.1f MB\n",
		phase, float64(ms.HeapAlloc)/1e6, float64(ms.HeapAlloc)/float64(size), float64(ru.Maxrss)/1e3)
	out, err := os.Create(filepath.Join(dir, phase+".prof"))
	must(err)
	must(pprof.WriteHeapProfile(out))
	must(out.Close())
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "memprof:", err)
		os.Exit(1)
	}
}
