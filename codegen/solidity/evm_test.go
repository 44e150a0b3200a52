package solidity_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/solidity"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

// solcDir is the npm folder with the pinned solc.
func solcDir(t testing.TB) (node, dir string) {
	t.Helper()
	node = testutil.Tool(t, "NODE", "nodejs", "node")
	dir = filepath.Join(testutil.Root(), "codegen", "solidity", "testdata", "solc")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "solc", "package.json")); err != nil {
		msg := "needs the solc npm package: run (cd codegen/solidity/testdata/solc && npm ci)"
		if testutil.InCI() {
			t.Fatalf("CI=true and solc is missing: this test %s", msg)
		}
		t.Skip("skipping: this test " + msg)
	}
	versionOnce.Do(func() {
		out, err := exec.Command(node, filepath.Join(dir, "version.mjs")).Output()
		if err != nil {
			t.Fatalf("solc: %v", err)
		}
		solcVersion = strings.TrimSpace(string(out))
	})
	return node, dir
}

var (
	versionOnce sync.Once
	// solcVersion is the version of the pinned solc-js.
	solcVersion string
)

// compiled is one contract's ABI and creation code.
type compiled struct {
	ABI abi.ABI
	Bin []byte
}

// solc compiles sources (file name to source) with the pinned solc-js in
// one run, with the optimizer, through the IR pipeline (solc --via-ir) or
// the legacy one, and returns each file's contract.
func solc(t testing.TB, sources map[string]string, viaIR bool) map[string]*compiled {
	t.Helper()
	node, dir := solcDir(t)
	type src struct {
		Content string `json:"content"`
	}
	in := map[string]any{
		"language": "Solidity",
		"sources":  map[string]src{},
		"settings": map[string]any{
			"viaIR":           viaIR,
			"optimizer":       map[string]any{"enabled": true, "runs": 200},
			"outputSelection": map[string]any{"*": map[string]any{"*": []string{"abi", "evm.bytecode.object"}}},
		},
	}
	for name, s := range sources {
		in["sources"].(map[string]src)[name] = src{s}
	}
	data, _ := json.Marshal(in)
	cmd := exec.Command(node, filepath.Join(dir, "compile.mjs"))
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("solc: %v\n%s", err, stderr.String())
	}
	var res struct {
		Errors []struct {
			Severity         string `json:"severity"`
			FormattedMessage string `json:"formattedMessage"`
			SourceLocation   struct {
				File string `json:"file"`
			} `json:"sourceLocation"`
		} `json:"errors"`
		Contracts map[string]map[string]struct {
			ABI json.RawMessage `json:"abi"`
			EVM struct {
				Bytecode struct {
					Object string `json:"object"`
				} `json:"bytecode"`
			} `json:"evm"`
		} `json:"contracts"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("solc output: %v\n%.2000s", err, out)
	}
	for _, e := range res.Errors {
		if e.Severity == "error" {
			name := e.SourceLocation.File
			t.Fatalf("solc rejected the contract %s:\n%s\n%s", name, e.FormattedMessage, sources[name])
		}
	}
	got := map[string]*compiled{}
	for file, cs := range res.Contracts {
		for _, c := range cs {
			a, err := abi.JSON(bytes.NewReader(c.ABI))
			if err != nil {
				t.Fatal(err)
			}
			got[file] = &compiled{ABI: a, Bin: common.FromHex(c.EVM.Bytecode.Object)}
		}
	}
	for name := range sources {
		if got[name] == nil {
			t.Fatalf("solc produced no contract for %s", name)
		}
	}
	return got
}

// evm is a deployed contract in go-ethereum's EVM.
type evm struct {
	cfg  *runtime.Config
	addr common.Address
	c    *compiled
	mod  *core.Module
	ct   *solidity.Contract
}

// gasLimit bounds one call; generated functions need far less.
const gasLimit = 1 << 30

func deploy(t testing.TB, c *compiled, ct *solidity.Contract) *evm {
	t.Helper()
	cfg := &runtime.Config{GasLimit: gasLimit}
	_, addr, _, err := runtime.Create(c.Bin, cfg)
	if err != nil {
		t.Fatalf("deploying %s: %v", ct.Name, err)
	}
	return &evm{cfg: cfg, addr: addr, c: c, mod: ct.Core, ct: ct}
}

var trapSelector = crypto.Keccak256([]byte(solidity.ErrorSignature))[:4]

// goArg converts a value to the Go type the ABI packer wants.
func goArg(k core.Kind, v value.Value) any {
	switch k {
	case core.Bool:
		return v.AsBool()
	case core.I32:
		return int32(v.Bits())
	case core.I64:
		return int64(v.Bits())
	case core.U32:
		return uint32(v.Bits())
	}
	return v.Bits()
}

func toValue(k core.Kind, x any) value.Value {
	switch x := x.(type) {
	case bool:
		return value.Bool(x)
	case int32:
		return value.Int(value.IntI32, uint64(int64(x)))
	case int64:
		return value.Int(value.IntI64, uint64(x))
	case uint32:
		return value.Int(value.IntU32, uint64(x))
	case uint64:
		return value.Int(value.IntU64, x)
	}
	panic(fmt.Sprintf("unexpected %T for %s", x, k))
}

// call calls a compiled function and renders its outcome as outcome does
// for the interpreter.
func (e *evm) call(name string, args []value.Value) string {
	f := e.mod.Func(name)
	m, ok := e.c.ABI.Methods[e.ct.Exports[name]]
	if !ok {
		return "error: the contract has no function " + e.ct.Exports[name]
	}
	var goArgs []any
	for i, a := range args {
		goArgs = append(goArgs, goArg(f.Params[i].K, a))
	}
	packed, err := m.Inputs.Pack(goArgs...)
	if err != nil {
		return "error: packing: " + err.Error()
	}
	ret, _, err := runtime.Call(e.addr, append(append([]byte{}, m.ID...), packed...), e.cfg)
	if err != nil {
		if errors.Is(err, vm.ErrExecutionReverted) && len(ret) == 36 && bytes.Equal(ret[:4], trapSelector) {
			site := new(big.Int).SetBytes(ret[4:]).Uint64()
			if site >= uint64(len(e.mod.Sites)) {
				return fmt.Sprintf("error: unknown site %d", site)
			}
			s := e.mod.Sites[site]
			return siteOutcome(s)
		}
		return fmt.Sprintf("error: EVM: %v (data %x)", err, ret)
	}
	outs, err := m.Outputs.Unpack(ret)
	if err != nil || len(outs) != 1 {
		return fmt.Sprintf("error: unpacking %x: %v", ret, err)
	}
	return "value " + toValue(f.Result, outs[0]).String()
}

func siteOutcome(s *core.Site) string {
	kind := string(s.Kind)
	if s.Kind == core.SiteCall {
		kind = string(interp.DepthBudget)
	}
	return fmt.Sprintf("error %s at %v in %s", kind, s.Span, s.Func)
}

// outcome renders the interpreter's result: the value, or the error's
// kind, place and function (what a revert's site identifies).
func outcome(v value.Value, err error) string {
	if err == nil {
		return "value " + v.String()
	}
	var re *interp.Error
	if !errors.As(err, &re) {
		return "error " + err.Error()
	}
	return fmt.Sprintf("error %s at %v in %s", re.Kind, re.Span, re.Function)
}

// counts tallies the outcomes compared, by kind.
type counts map[string]int

func (c counts) add(o string) {
	k := strings.Fields(o)
	if k[0] == "value" {
		c["value"]++
	} else {
		c[k[1]]++
	}
}

func (c counts) String() string {
	var ks []string
	for k := range c {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

// edgeValues are the boundary values of each kind, as source literals.
var edgeValues = map[core.Kind][]string{
	core.Bool: {"true", "false"},
	core.I32:  {"-2147483648", "2147483647", "0", "-1", "1"},
	core.I64:  {"-9223372036854775808", "9223372036854775807", "0", "-1", "1"},
	core.U32:  {"0", "4294967295", "1", "2147483648"},
	core.U64:  {"0", "18446744073709551615", "1", "9223372036854775808"},
}

// edgeInputs returns every combination of edge values for f's
// parameters, at most limit of them (deterministically spread).
func edgeInputs(f *core.Func, limit int) [][]string {
	out := [][]string{{}}
	for _, p := range f.Params {
		var next [][]string
		for _, prefix := range out {
			for _, v := range edgeValues[p.K] {
				next = append(next, append(append([]string{}, prefix...), v))
			}
		}
		out = next
	}
	if len(out) <= limit {
		return out
	}
	step := len(out) / limit
	var picked [][]string
	for i := 0; i < len(out) && len(picked) < limit; i += step {
		picked = append(picked, out[i])
	}
	return picked
}
