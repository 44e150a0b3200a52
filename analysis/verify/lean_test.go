package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLeanGolden states the obligations of a few modules in Lean and
// compares the file and the list of entries with
// testdata/verify/lean/NAME.lean and NAME.json (go test ./analysis/verify
// -run TestLeanGolden -update).
func TestLeanGolden(t *testing.T) {
	for _, path := range []string{
		filepath.Join(testdata, "contracts.caps"),
		filepath.Join("..", "..", "examples", "01_abs_i64.caps"),
		filepath.Join("..", "..", "examples", "abs.caps"),
	} {
		name := strings.TrimSuffix(filepath.Base(path), ".caps")
		t.Run(name, func(t *testing.T) {
			rel := filepath.ToSlash(strings.TrimPrefix(path, "../../"))
			lf, err := EmitLean(loadFile(t, path).Result, rel)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := json.MarshalIndent(lf.Entries, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			for ext, got := range map[string]string{".lean": lf.Source, ".json": string(entries) + "\n"} {
				golden := filepath.Join(testdata, "lean", name+ext)
				if *update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v; run go test ./analysis/verify -run TestLeanGolden -update", err)
				}
				if diff := cmp.Diff(string(want), got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", golden, diff)
				}
			}
		})
	}
}
