package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/runtime/examples"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/syntax"
)

// The interpreter gives repair-plan the values failing examples returned.
func init() {
	evaluatedValues = func(pkg *load.Package) map[syntax.Span]string {
		if pkg.Result.HasErrors() {
			return nil
		}
		out := map[syntax.Span]string{}
		for _, o := range examples.Evaluate(pkg.Result) {
			if !o.Passed && o.Err == nil && o.Got.IsValid() {
				out[o.Example.Example.Expected.ExprSpan()] = o.Got.String()
			}
		}
		return out
	}
}

// packageSource is the report source of a loaded package.
func packageSource(path string, pkg *load.Package) *report.Source {
	src := &report.Source{Path: path, Text: pkg.Src}
	if pkg.File != nil && pkg.File.Source != nil && pkg.File.Source.CST != nil {
		src.Lines = pkg.File.Source.CST.Lines
	}
	return src
}

// newInterp returns an interpreter for a checked package with the budgets
// of the command line (0 keeps the defaults).
func newInterp(pkg *load.Package, maxSteps int64, maxDepth int) *interp.Interp {
	in := interp.New(pkg.Result)
	in.MaxSteps, in.MaxDepth = maxSteps, maxDepth
	return in
}

// sourceOf finds the text of the module a runtime error points into: the
// package itself for file "", else one of its (transitive) imports.
func sourceOf(path string, pkg *load.Package, file string) *report.Source {
	if file == "" {
		return packageSource(path, pkg)
	}
	seen := map[*check.Result]bool{}
	var walk func(r *check.Result) *report.Source
	walk = func(r *check.Result) *report.Source {
		if r == nil || seen[r] {
			return nil
		}
		seen[r] = true
		for _, im := range r.Imports {
			if im.Imported == nil {
				continue
			}
			if im.File == file && im.Result != nil && im.Result.File != nil && im.Result.File.Source != nil {
				cst := im.Result.File.Source.CST
				return &report.Source{Path: file, Text: cst.Src, Lines: cst.Lines}
			}
			if s := walk(im.Result); s != nil {
				return s
			}
		}
		return nil
	}
	return walk(pkg.Result)
}

// position prints a span's start as PATH:LINE:COL (1-based, code points).
func position(src *report.Source, sp syntax.Span) string {
	if src == nil {
		return ""
	}
	return cli.DisplayPath(src.Path) + ":" + src.Mapper().Point(sp.Start).String()
}

// lspRange converts a span to an LSP range (0-based, UTF-16).
func lspRange(src *report.Source, sp syntax.Span) *syntax.Range {
	if src == nil {
		return nil
	}
	r := src.Mapper().Range(sp, syntax.UTF16)
	return &r
}

// runtimeErrorText describes a runtime error for people: the place and
// message, then where the failing call came from.
//
//	examples/a.caps:12:5: runtime error division-by-zero: division by zero: 1 / 0
//	examples/a.caps:20:9: note: in the call of div from f
func runtimeErrorText(path string, pkg *load.Package, err error) string {
	var re *interp.Error
	if !errors.As(err, &re) {
		return fmt.Sprintf("%s: %v\n", cli.DisplayPath(path), err)
	}
	var b strings.Builder
	where := cli.DisplayPath(path)
	if re.Span != (syntax.Span{}) || re.Function != "" {
		if p := position(sourceOf(path, pkg, re.File), re.Span); p != "" {
			where = p
		}
	}
	fmt.Fprintf(&b, "%s: runtime error %s: %s\n", where, re.Kind, re.Message)
	for _, fr := range re.Stack {
		if fr.Caller == "" {
			continue // the host's call
		}
		if p := position(sourceOf(path, pkg, fr.File), fr.Span); p != "" {
			fmt.Fprintf(&b, "%s: note: in the call of %s from %s\n", p, fr.Function, fr.Caller)
		}
	}
	if re.Dropped > 0 {
		fmt.Fprintf(&b, "%s: note: ... and %d more calls\n", cli.DisplayPath(path), re.Dropped)
	}
	return b.String()
}

// errorJSON is a runtime error in JSON output.
type errorJSON struct {
	Kind    string        `json:"kind"`
	Message string        `json:"message"`
	Path    string        `json:"path,omitempty"`
	Range   *syntax.Range `json:"range,omitempty"`
}

func runtimeErrorJSON(path string, pkg *load.Package, err error) *errorJSON {
	var re *interp.Error
	if !errors.As(err, &re) {
		return &errorJSON{Kind: string(interp.Internal), Message: err.Error()}
	}
	out := &errorJSON{Kind: string(re.Kind), Message: re.Message}
	if re.Span != (syntax.Span{}) || re.Function != "" {
		if src := sourceOf(path, pkg, re.File); src != nil {
			out.Path, out.Range = src.Path, lspRange(src, re.Span)
		}
	}
	return out
}
