package propose

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// splitLines splits text into lines that keep their "\n"; a last line
// without one is kept as is.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// op is one step of an edit script.
type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// maxDiffCost bounds the Myers search; past it the differing middle is
// reported as replaced wholesale (still a correct, if larger, diff).
const maxDiffCost = 20000

// diffLines returns an edit script turning a into b (Myers' O(ND)
// algorithm after trimming the common prefix and suffix).
func diffLines(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []op
	for _, l := range a[:pre] {
		out = append(out, op{' ', l})
	}
	out = append(out, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		out = append(out, op{' ', l})
	}
	return out
}

func myers(a, b []string) []op {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		var out []op
		for _, l := range a {
			out = append(out, op{'-', l})
		}
		for _, l := range b {
			out = append(out, op{'+', l})
		}
		return out
	}
	max := n + m
	offset := max
	v := make([]int, 2*max+2)
	var trace [][]int
	found := false
	for d := 0; d <= max && d <= maxDiffCost; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[offset+k-1] < v[offset+k+1] {
				x = v[offset+k+1]
			} else {
				x = v[offset+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[offset+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		var out []op
		for _, l := range a {
			out = append(out, op{'-', l})
		}
		for _, l := range b {
			out = append(out, op{'+', l})
		}
		return out
	}
	// Backtrack through the saved frontiers.
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vd := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && vd[offset+k-1] < vd[offset+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vd[offset+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, op{' ', a[x]})
		}
		if x == px {
			y--
			rev = append(rev, op{'+', b[y]})
		} else {
			x--
			rev = append(rev, op{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, op{' ', a[x]})
	}
	out := make([]op, len(rev))
	for i, o := range rev {
		out[len(rev)-1-i] = o
	}
	return out
}

// LineStats counts the lines a change adds and removes.
func LineStats(before, after []byte) (added, removed int) {
	for _, o := range diffLines(splitLines(before), splitLines(after)) {
		switch o.kind {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	return
}

// UnifiedDiff returns a unified diff (3 lines of context) from before to
// after for the workspace path name; "" when they are equal. A missing
// before (exists false) is written as /dev/null.
func UnifiedDiff(name string, before []byte, beforeExists bool, after []byte) string {
	if beforeExists && bytes.Equal(before, after) {
		return ""
	}
	ops := diffLines(splitLines(before), splitLines(after))
	const ctx = 3
	var b strings.Builder
	from := "a/" + name
	if !beforeExists {
		from = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ b/%s\n", from, name)
	// Group changes into hunks.
	i := 0
	aLine, bLine := 1, 1 // 1-based numbers of ops[i]
	for i < len(ops) {
		if ops[i].kind == ' ' {
			i++
			aLine++
			bLine++
			continue
		}
		// Hunk start: back up over context.
		start := i
		sa, sb := aLine, bLine
		for k := 0; k < ctx && start > 0 && ops[start-1].kind == ' '; k++ {
			start--
			sa--
			sb--
		}
		// Extend while the next change is within 2*ctx lines.
		end := i
		ea, eb := aLine, bLine
		for end < len(ops) {
			if ops[end].kind != ' ' {
				if ops[end].kind == '-' {
					ea++
				} else {
					eb++
				}
				end++
				continue
			}
			run := 0
			for end+run < len(ops) && ops[end+run].kind == ' ' {
				run++
			}
			if end+run == len(ops) || run > 2*ctx {
				take := min(run, ctx)
				end += take
				ea += take
				eb += take
				break
			}
			end += run
			ea += run
			eb += run
		}
		na, nb := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(sa, na), hunkRange(sb, nb))
		for _, o := range ops[start:end] {
			b.WriteByte(o.kind)
			b.WriteString(o.line)
			if !strings.HasSuffix(o.line, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
		aLine, bLine = ea, eb
	}
	return b.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return strconv.Itoa(start-1) + ",0"
	}
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// FilePatch is the part of a unified diff for one file.
type FilePatch struct {
	// OldPath and NewPath are the header names with a leading "a/" or "b/"
	// removed; "/dev/null" marks a created or deleted file.
	OldPath, NewPath string
	Hunks            []Hunk
}

// Hunk is one @@ section.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Header             string // the @@ line
	Lines              []op
	line               int // line of the @@ in the diff, for messages
}

// PatchError is a problem parsing or applying a diff.
type PatchError struct {
	Line int // line of the diff, when known
	Msg  string
}

func (e *PatchError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("patch line %d: %s", e.Line, e.Msg)
	}
	return "patch: " + e.Msg
}

// ParsePatch parses a unified diff (as written by diff -u, git diff or
// UnifiedDiff). Lines before the first "---" header and git's extended
// header lines are ignored.
func ParsePatch(diff []byte) ([]*FilePatch, error) {
	lines := splitLines(diff)
	var out []*FilePatch
	var cur *FilePatch
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\r\n")
		switch {
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			cur = &FilePatch{OldPath: headerPath(l[4:]), NewPath: headerPath(strings.TrimRight(lines[i+1][4:], "\r\n"))}
			out = append(out, cur)
			i++
		case strings.HasPrefix(l, "@@"):
			if cur == nil {
				return nil, &PatchError{i + 1, "hunk before any --- / +++ file header"}
			}
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, err
			}
			cur.Hunks = append(cur.Hunks, h)
			i = next - 1
		default:
			// diff --git, index, mode lines, commentary: ignored.
		}
	}
	if len(out) == 0 {
		return nil, &PatchError{0, "no file headers (--- a/FILE, +++ b/FILE) found: not a unified diff"}
	}
	for _, fp := range out {
		if len(fp.Hunks) == 0 {
			return nil, &PatchError{0, fmt.Sprintf("no hunks for %s", fp.NewPath)}
		}
	}
	return out, nil
}

func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i] // timestamp
	}
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return s
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

func parseHunk(lines []string, i int) (Hunk, int, error) {
	head := strings.TrimRight(lines[i], "\r\n")
	h := Hunk{Header: head, line: i + 1}
	rest, ok := strings.CutPrefix(head, "@@ -")
	if !ok {
		return h, 0, &PatchError{i + 1, fmt.Sprintf("malformed hunk header %q", head)}
	}
	end := strings.Index(rest, " @@")
	if end < 0 {
		return h, 0, &PatchError{i + 1, fmt.Sprintf("malformed hunk header %q", head)}
	}
	parts := strings.Fields(rest[:end])
	if len(parts) != 2 || !strings.HasPrefix(parts[1], "+") {
		return h, 0, &PatchError{i + 1, fmt.Sprintf("malformed hunk header %q", head)}
	}
	var err error
	if h.OldStart, h.OldLines, err = parseRange(parts[0]); err != nil {
		return h, 0, &PatchError{i + 1, fmt.Sprintf("malformed hunk header %q", head)}
	}
	if h.NewStart, h.NewLines, err = parseRange(parts[1][1:]); err != nil {
		return h, 0, &PatchError{i + 1, fmt.Sprintf("malformed hunk header %q", head)}
	}
	na, nb := 0, 0
	j := i + 1
	for ; j < len(lines) && (na < h.OldLines || nb < h.NewLines); j++ {
		l := lines[j]
		if l == "\n" || l == "\r\n" {
			l = " " + l // an empty context line whose space was stripped
		}
		switch l[0] {
		case ' ':
			h.Lines = append(h.Lines, op{' ', l[1:]})
			na++
			nb++
		case '-':
			h.Lines = append(h.Lines, op{'-', l[1:]})
			na++
		case '+':
			h.Lines = append(h.Lines, op{'+', l[1:]})
			nb++
		case '\\':
			noNewline(&h)
		default:
			return h, 0, &PatchError{j + 1, fmt.Sprintf("hunk %s ends early: expected %d old and %d new lines, got %d and %d", head, h.OldLines, h.NewLines, na, nb)}
		}
	}
	if na != h.OldLines || nb != h.NewLines {
		return h, 0, &PatchError{j, fmt.Sprintf("hunk %s ends early: expected %d old and %d new lines, got %d and %d", head, h.OldLines, h.NewLines, na, nb)}
	}
	if j < len(lines) && strings.HasPrefix(lines[j], `\`) {
		noNewline(&h)
		j++
	}
	return h, j, nil
}

// noNewline applies a "\ No newline at end of file" marker to the line
// before it.
func noNewline(h *Hunk) {
	if n := len(h.Lines); n > 0 {
		h.Lines[n-1].line = strings.TrimSuffix(h.Lines[n-1].line, "\n")
	}
}

func parseRange(s string) (start, n int, err error) {
	a, b, ok := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return
	}
	n = 1
	if ok {
		n, err = strconv.Atoi(b)
	}
	if start < 0 || n < 0 {
		err = fmt.Errorf("negative")
	}
	return
}

// Apply applies the hunks to src. Every context and removed line must
// match exactly (fuzz 0). A hunk that does not match at the line its
// header names is looked for at the nearest other line where it matches
// in full (an offset, as when earlier lines were added or removed); hunks
// must stay in order and not overlap.
func (fp *FilePatch) Apply(src []byte) ([]byte, error) {
	lines := splitLines(src)
	var out []string
	pos := 0 // next unconsumed line of src
	for hi, h := range fp.Hunks {
		var old, repl []string
		for _, o := range h.Lines {
			if o.kind != '+' {
				old = append(old, o.line)
			}
			if o.kind != '-' {
				repl = append(repl, o.line)
			}
		}
		want := h.OldStart - 1
		if h.OldLines == 0 {
			want = h.OldStart // insertion after line OldStart
		}
		at := -1
		if matchAt(lines, want, old) && want >= pos {
			at = want
		} else {
			for d := 1; at < 0 && (want-d >= pos || want+d <= len(lines)); d++ {
				if want-d >= pos && matchAt(lines, want-d, old) {
					at = want - d
				} else if matchAt(lines, want+d, old) {
					at = want + d
				}
			}
		}
		if at < 0 {
			return nil, &PatchError{h.line, fmt.Sprintf("hunk %d (%s) does not apply to %s: %s", hi+1, h.Header, fp.NewPath, mismatch(lines, want, old))}
		}
		out = append(out, lines[pos:at]...)
		out = append(out, repl...)
		pos = at + len(old)
	}
	out = append(out, lines[pos:]...)
	return []byte(strings.Join(out, "")), nil
}

func matchAt(lines []string, at int, old []string) bool {
	if at < 0 || at+len(old) > len(lines) {
		return false
	}
	for i, l := range old {
		if lines[at+i] != l {
			return false
		}
	}
	return true
}

// mismatch describes why old does not match at line at.
func mismatch(lines []string, at int, old []string) string {
	for i, l := range old {
		if at+i >= len(lines) {
			return fmt.Sprintf("the file has %d lines, the hunk expects line %d to be %q", len(lines), at+i+1, strings.TrimSuffix(l, "\n"))
		}
		if lines[at+i] != l {
			return fmt.Sprintf("line %d is %q but the patch expects %q (and the hunk matches nowhere else)", at+i+1, strings.TrimSuffix(lines[at+i], "\n"), strings.TrimSuffix(l, "\n"))
		}
	}
	return "the hunk overlaps an earlier one"
}
