// Package wasmrun runs modules compiled by codegen/wasm under wazero and
// turns their results and traps back into Capsulang values and the
// interpreter's runtime errors, so that `caps call --engine wasm` prints
// exactly what the interpreter prints.
//
// One Runtime holds a wazero runtime (the optimizing compiler engine where
// the platform has it, else wazero's interpreter) with an in-memory
// compilation cache shared by every Runtime of the process: compiling the
// same module bytes twice costs one compilation.
package wasmrun

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/capsulang/caps/codegen/core"
	cwasm "github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

var (
	cacheOnce sync.Once
	cache     wazero.CompilationCache
)

// SharedCache is the process-wide compilation cache.
func SharedCache() wazero.CompilationCache {
	cacheOnce.Do(func() { cache = wazero.NewCompilationCache() })
	return cache
}

// Runtime is a wazero runtime for compiled Capsulang modules.
type Runtime struct {
	rt wazero.Runtime
}

// NewRuntime returns a runtime using the shared compilation cache.
func NewRuntime(ctx context.Context) *Runtime {
	cfg := wazero.NewRuntimeConfig().WithCompilationCache(SharedCache())
	return &Runtime{rt: wazero.NewRuntimeWithConfig(ctx, cfg)}
}

// Close releases the runtime and every instance.
func (r *Runtime) Close(ctx context.Context) error { return r.rt.Close(ctx) }

// Instance is an instantiated compiled module.
type Instance struct {
	Module     *cwasm.Module
	mod        api.Module
	mem        api.Memory
	depth      api.Global
	entryDepth api.MutableGlobal
	fuel       api.MutableGlobal
	trapSite   api.MutableGlobal
	fns        []api.Function
	nparams    []int // of each function
	pages      uint32
	stack      []uint64
	// entry is the value of caps.entry_depth, which only the host sets;
	// stackDepth is the depth budget the shadow stack has room for.
	entry      uint64
	stackDepth int
}

// Instantiate compiles (or takes from the cache) and instantiates m.
func (r *Runtime) Instantiate(ctx context.Context, m *cwasm.Module) (*Instance, error) {
	cm, err := r.rt.CompileModule(ctx, m.Binary)
	if err != nil {
		return nil, fmt.Errorf("wazero rejected the module: %w", err)
	}
	mod, err := r.rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		return nil, fmt.Errorf("wazero could not instantiate the module: %w", err)
	}
	in := &Instance{Module: m, mod: mod, mem: mod.ExportedMemory(cwasm.ExportMemory)}
	var ok1, ok2, ok3 bool
	in.depth = mod.ExportedGlobal(cwasm.ExportDepth)
	in.entryDepth, ok1 = mod.ExportedGlobal(cwasm.ExportEntryDepth).(api.MutableGlobal)
	in.fuel, ok2 = mod.ExportedGlobal(cwasm.ExportFuel).(api.MutableGlobal)
	in.trapSite, ok3 = mod.ExportedGlobal(cwasm.ExportTrapSite).(api.MutableGlobal)
	if !ok1 || !ok2 || !ok3 || in.depth == nil || in.mem == nil {
		return nil, errors.New("the module lacks the caps.* runtime exports; compile it with this version of codegen/wasm")
	}
	for _, f := range m.Core.Funcs {
		fn := mod.ExportedFunction(f.Name)
		if fn == nil {
			return nil, fmt.Errorf("the module does not export %s", f.Name)
		}
		in.fns = append(in.fns, fn)
		in.nparams = append(in.nparams, len(f.Params))
	}
	in.pages = uint32(m.Pages)
	in.entry = in.entryDepth.Get()
	return in, nil
}

// Trap describes a trap of compiled code.
type Trap struct {
	Site *core.Site
	// Values are the i64 values the trap stored: the dividend, the
	// parameters (and the result, for ensures), the matched value, or the
	// call-trap code (wasm.CallTrapDepth, wasm.CallTrapFuel).
	Values []uint64
	// Calls lists the active call sites, outermost first (the host's own
	// call not included).
	Calls []*core.Site
}

// Budgets bound one call, as the interpreter's budgets do.
type Budgets struct {
	MaxDepth int   // 0: interp.DefaultMaxDepth
	MaxSteps int64 // 0: interp.DefaultMaxSteps; compiled code counts calls against it
}

// CallRaw calls function fi (an index into Module.Core.Funcs) with raw
// arguments in the ABI representation. It returns the raw result, or a
// *Trap, or another error.
//
// The call runs without a call trace and checks the call budget late. If
// it traps inside nested calls, or the budget ran out, CallRaw runs it
// again in the module's trace mode (the functions are pure, so it stops
// at the same place, or at the exact call that spent the budget) to read
// the active call sites.
func (in *Instance) CallRaw(ctx context.Context, fi int, args []uint64, b Budgets) (uint64, error) {
	maxDepth := b.MaxDepth
	if maxDepth <= 0 {
		maxDepth = interp.DefaultMaxDepth
	}
	if maxDepth >= cwasm.TraceBias {
		return 0, fmt.Errorf("max depth %d is too large for compiled code; use at most %d", maxDepth, cwasm.TraceBias-1)
	}
	fuel := b.MaxSteps
	if fuel <= 0 {
		fuel = interp.DefaultMaxSteps
	}
	if in.nparams[fi] != len(args) {
		f := in.Module.Core.Funcs[fi]
		return 0, fmt.Errorf("%s takes %d arguments, got %d", f.Name, len(f.Params), len(args))
	}
	// The host's call is the outermost frame: maxDepth-1 nested calls
	// remain.
	entry := uint64(uint32(maxDepth - 1))
	res, err := in.run(ctx, fi, args, entry, fuel)
	if err == nil {
		return res, nil
	}
	site := int32(uint32(in.trapSite.Get()))
	sites := in.Module.Core.Sites
	if site != cwasm.TrapFuelLate && (site < 0 || int(site) >= len(sites)) {
		return 0, fmt.Errorf("compiled code failed: %v", err)
	}
	// A trap in the host's own frame, with the call budget not spent, is
	// complete. Otherwise replay in trace mode: that gives the call trace
	// and stops exactly at the call that spends the budget.
	if site == cwasm.TrapFuelLate || int32(uint32(in.depth.Get())) != int32(maxDepth-1) || int64(in.fuel.Get()) < 0 {
		if err := in.ensureStack(maxDepth); err != nil {
			return 0, err
		}
		in.trapSite.Set(uint64(math.MaxUint32))
		if _, err2 := in.run(ctx, fi, args, uint64(uint32(int32(maxDepth-1)-cwasm.TraceBias)), fuel); err2 == nil {
			return 0, fmt.Errorf("compiled code failed (%v) but did not fail again in trace mode", err)
		}
		site = int32(uint32(in.trapSite.Get()))
		if site < 0 || int(site) >= len(sites) {
			return 0, fmt.Errorf("compiled code failed in trace mode: %v", err)
		}
	}
	t := &Trap{Site: sites[site]}
	nv := 1
	switch t.Site.Kind {
	case core.SiteRequires:
		nv = len(in.Module.Core.Funcs[t.Site.FuncIdx].Params)
	case core.SiteEnsures:
		nv = len(in.Module.Core.Funcs[t.Site.FuncIdx].Params) + 1
	}
	buf, _ := in.mem.Read(0, uint32(8*nv))
	for i := 0; i < nv && 8*i+8 <= len(buf); i++ {
		t.Values = append(t.Values, binary.LittleEndian.Uint64(buf[8*i:]))
	}
	// The frame that trapped had d nested calls left; the shadow stack
	// holds, at index e, the call site of the frame called with e-1 left.
	d := int(int32(uint32(in.depth.Get())))
	if d < 0 {
		d += cwasm.TraceBias
	}
	if n := maxDepth - 1 - d; n > 0 && d >= 0 {
		raw, _ := in.mem.Read(uint32(in.Module.StackBase+4*(d+1)), uint32(4*n))
		for i := len(raw)/4 - 1; i >= 0; i-- {
			id := binary.LittleEndian.Uint32(raw[4*i:])
			if int(id) < len(sites) {
				t.Calls = append(t.Calls, sites[id])
			}
		}
	}
	return 0, t
}

// run calls function fi's export with the given depth budget and fuel.
func (in *Instance) run(ctx context.Context, fi int, args []uint64, entry uint64, fuel int64) (uint64, error) {
	if entry != in.entry {
		in.entryDepth.Set(entry)
		in.entry = entry
	}
	in.fuel.Set(uint64(fuel))
	n := max(len(args), 1)
	if cap(in.stack) < n {
		in.stack = make([]uint64, n)
	}
	st := in.stack[:n]
	copy(st, args)
	if err := in.fns[fi].CallWithStack(ctx, st); err != nil {
		return 0, err
	}
	return st[0], nil
}

func (t *Trap) Error() string { return fmt.Sprintf("trap at site %d (%s)", t.Site.ID, t.Site.Kind) }

// ensureStack grows the memory so that the shadow stack holds maxDepth
// entries (for trace mode).
func (in *Instance) ensureStack(maxDepth int) error {
	if maxDepth <= in.stackDepth {
		return nil
	}
	need := uint64(in.Module.StackBase) + 4*uint64(maxDepth+1)
	pages := uint32((need + 65535) / 65536)
	if pages > in.pages {
		if _, ok := in.mem.Grow(pages - in.pages); !ok {
			return fmt.Errorf("cannot grow the wasm memory to %d pages for the call trace at depth %d; lower --max-depth", pages, maxDepth)
		}
		in.pages = pages
	}
	in.stackDepth = maxDepth
	return nil
}

// IntKind maps a scalar kind to the value package's integer kind.
func IntKind(k core.Kind) value.IntKind {
	switch k {
	case core.I32:
		return value.IntI32
	case core.U32:
		return value.IntU32
	case core.U64:
		return value.IntU64
	}
	return value.IntI64
}

// ToValue converts a raw ABI value of kind k to a value.
func ToValue(k core.Kind, raw uint64) value.Value {
	if k == core.Bool {
		return value.Bool(uint32(raw) != 0)
	}
	return value.Int(IntKind(k), core.Wrap(k, raw))
}

// FromValue converts a value of kind k to its raw ABI representation.
func FromValue(k core.Kind, v value.Value) (uint64, error) {
	if k == core.Bool {
		if v.Kind() != value.KindBool {
			return 0, fmt.Errorf("expected a Bool, got %s", v)
		}
		if v.AsBool() {
			return 1, nil
		}
		return 0, nil
	}
	if v.Kind() != value.KindInt {
		return 0, fmt.Errorf("expected an integer, got %s", v)
	}
	return core.Wrap(k, v.Bits()), nil
}

// Call calls the named function with values and returns its value, or the
// *interp.Error the interpreter would have reported. The error text and
// places match the interpreter's; the one difference is the step budget,
// which compiled code enforces by counting calls (see docs/codegen.md).
func (in *Instance) Call(ctx context.Context, name string, args []value.Value, b Budgets) (value.Value, error) {
	fi := in.Module.Core.FuncIndex(name)
	if fi < 0 {
		return value.Value{}, &interp.Error{Kind: interp.UnknownFunction, Message: fmt.Sprintf("the module has no compiled function %s", name)}
	}
	f := in.Module.Core.Funcs[fi]
	if len(args) != len(f.Params) {
		return value.Value{}, &interp.Error{Kind: interp.BadArgument, Span: f.Decl.Name.Span,
			Message: fmt.Sprintf("%s takes %d arguments, got %d", f.Name, len(f.Params), len(args))}
	}
	raw := make([]uint64, len(args))
	for i, a := range args {
		r, err := FromValue(f.Params[i].K, a)
		if err != nil {
			return value.Value{}, &interp.Error{Kind: interp.BadArgument, Span: f.Decl.Name.Span,
				Message: fmt.Sprintf("argument %s of %s: %v", f.Params[i].Name, f.Name, err)}
		}
		raw[i] = r
	}
	res, err := in.CallRaw(ctx, fi, raw, b)
	if err != nil {
		var t *Trap
		if errors.As(err, &t) {
			return value.Value{}, in.TrapError(fi, raw, t, b)
		}
		return value.Value{}, &interp.Error{Kind: interp.Internal, Message: "compiled code failed: " + err.Error()}
	}
	return ToValue(f.Result, res), nil
}

// TrapError builds the interpreter's error for a trap of a call of
// function fi with raw arguments.
func (in *Instance) TrapError(fi int, args []uint64, t *Trap, b Budgets) *interp.Error {
	m := in.Module.Core
	s := t.Site
	f := m.Funcs[s.FuncIdx]
	val := func(i int) uint64 {
		if i < len(t.Values) {
			return t.Values[i]
		}
		return 0
	}
	e := &interp.Error{Span: s.Span, Function: s.Func}
	switch s.Kind {
	case core.SiteDivZero:
		e.Kind = interp.DivisionByZero
		e.Message = fmt.Sprintf("division by zero: %s %c 0", ToValue(s.OpKind, val(0)), s.Op)
	case core.SiteRequires:
		e.Kind = interp.RequiresFailed
		e.Message = fmt.Sprintf("%s: requires %s does not hold%s", f.Name, s.Text, argsText(f, t.Values, false))
	case core.SiteEnsures:
		e.Kind = interp.EnsuresFailed
		e.Message = fmt.Sprintf("%s: ensures %s does not hold%s", f.Name, s.Text, argsText(f, t.Values, true))
	case core.SiteNoMatch:
		e.Kind = interp.NoMatch
		e.Message = fmt.Sprintf("no arm of this match accepts %s", ToValue(s.OpKind, val(0)))
	case core.SiteCall:
		if val(0) == cwasm.CallTrapFuel {
			steps := b.MaxSteps
			if steps <= 0 {
				steps = interp.DefaultMaxSteps
			}
			e.Kind = interp.StepBudget
			e.Message = fmt.Sprintf("evaluation took more than %d steps (in %s); is there a runaway recursion?", steps, s.Func)
		} else {
			depth := b.MaxDepth
			if depth <= 0 {
				depth = interp.DefaultMaxDepth
			}
			e.Kind = interp.DepthBudget
			e.Message = fmt.Sprintf("recursion deeper than %d calls in %s; is there a missing base case?", depth, s.Callee)
		}
	}
	// The call trace, innermost first, then the host's call.
	var frames []interp.Frame
	for i := len(t.Calls) - 1; i >= 0; i-- {
		c := t.Calls[i]
		frames = append(frames, interp.Frame{Function: c.Callee, Caller: c.Func, Span: c.Span})
	}
	frames = append(frames, interp.Frame{Function: m.Funcs[fi].Name, Span: m.Funcs[fi].Decl.Name.Span})
	if len(frames) > interp.MaxStack {
		e.Dropped = len(frames) - interp.MaxStack
		frames = frames[:interp.MaxStack]
	}
	e.Stack = frames
	return e
}

// argsText formats a contract failure's arguments as the interpreter does:
// " for x = 5, lo = 0", or " for result = R (x = 5)".
func argsText(f *core.Func, vals []uint64, withResult bool) string {
	var parts []string
	for i, p := range f.Params {
		var raw uint64
		if i < len(vals) {
			raw = vals[i]
		}
		parts = append(parts, p.Name+" = "+ToValue(p.K, raw).String())
	}
	args := strings.Join(parts, ", ")
	if withResult {
		var raw uint64
		if len(f.Params) < len(vals) {
			raw = vals[len(f.Params)]
		}
		s := " for result = " + ToValue(f.Result, raw).String()
		if args != "" {
			s += " (" + args + ")"
		}
		return s
	}
	if args == "" {
		return ""
	}
	return " for " + args
}
