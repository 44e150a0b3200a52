package adapters

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/trace"
)

// StoreBinding binds a module's store to a local, file-backed store: a
// folder of JSON Lines files, created when first written. The backend the
// module declares for the store (surrealdb, typedb, ...) is not contacted:
// this binding keeps the store's records on the host's disk (a binding to
// a real SurrealDB or TypeDB server is future work).
type StoreBinding struct {
	// Dir is the store's folder (relative to the current folder; ${NAME}
	// is the host's environment variable).
	Dir string `json:"dir"`
}

// CodeStore is the failure code of a store the adapter cannot read or
// write (the message names the file).
const CodeStore = "R_STORE"

// fileStore is the state of one bound store: a lock and, per file, the
// intent ids already written (so a retried or repeated intent is written
// once).
type fileStore struct {
	mu      sync.Mutex
	dir     string
	written map[string]map[string]int // file -> intent key -> line (1-based)
	lines   map[string]int
}

func (x *LiveExecutor) fileStore(name string, out *machine.Outcome) *fileStore {
	var b *StoreBinding
	if x.Policy != nil {
		b = x.Policy.Stores[name]
	}
	if b == nil {
		out.Code, out.Error = CodeNoAdapter, fmt.Sprintf("the host policy binds no store %s; add it under \"stores\" in the host section: {\"%s\": {\"dir\": \"FOLDER\"}}", name, name)
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.stores[name]
	if s == nil {
		s = &fileStore{dir: b.Dir, written: map[string]map[string]int{}, lines: map[string]int{}}
		x.stores[name] = s
	}
	return s
}

// storeCall carries out db.write STORE.COLLECTION, db.project
// STORE.COLLECTION, typedb.write STORE and typedb.query STORE against the
// file-backed store the host section binds STORE to:
//
//   - db.write appends a record to COLLECTION.jsonl;
//   - db.project replaces the instance's entry of the read model
//     COLLECTION.json, an object by instance id (written to a temporary
//     file, then renamed over the old one);
//   - typedb.write appends a fact to facts.jsonl;
//   - typedb.query returns the facts of facts.jsonl whose fields include
//     every field of the event's payload.
//
// A record is {"intent", "instance", "machine", "seq", "event", "state",
// "context", "payload", "args"}: the intent's id, the instance, the step,
// the event, the state the transition entered, the context after its
// assignments, the event's payload and the intent's arguments. Appends are
// one write of a whole line, synced before the attempt succeeds; an
// intent already in the file is not written again.
func (x *LiveExecutor) storeCall(ctx context.Context, store, collection string, c *machine.Call) machine.Outcome {
	out := machine.Outcome{Adapter: "store"}
	s := x.fileStore(store, &out)
	if s == nil {
		return out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		out.Code, out.Error = CodeStore, fmt.Sprintf("store %s: %v", store, err)
		return out
	}
	rec := storeRecord(c)
	key := c.IntentID
	if key == "" {
		key = fmt.Sprintf("%s/%d/%d", c.InstanceID, c.Seq, c.Spec.Index)
	}
	switch c.Spec.Name {
	case "db.write":
		s.appendRecord(store, collection+".jsonl", key, rec, &out)
	case "typedb.write":
		s.appendRecord(store, "facts.jsonl", key, rec, &out)
	case "db.project":
		s.project(store, collection+".json", c.InstanceID, rec, &out)
	case "typedb.query":
		s.query(store, "facts.jsonl", Arguments(&machine.Call{Payload: c.Payload, Spec: &machine.EffectSpec{}}), &out)
	}
	return out
}

func storeRecord(c *machine.Call) []byte {
	o := &obj{}
	o.str("intent", c.IntentID).str("instance", c.InstanceID).str("machine", c.Machine.Name)
	o.raw("seq", strconv.AppendUint(nil, c.Seq, 10)).str("event", c.Event).str("state", c.State)
	ctx := &obj{}
	for k, f := range c.Machine.Context {
		if k < len(c.Context) {
			ctx.raw(f.Name, appendArg(nil, c.Context[k]))
		}
	}
	o.raw("context", ctx.done())
	o.raw("payload", Arguments(&machine.Call{Payload: c.Payload, Spec: &machine.EffectSpec{}}))
	args := []byte{'['}
	for k, a := range c.Args {
		if k > 0 {
			args = append(args, ',')
		}
		args = appendArg(args, a)
	}
	o.raw("args", append(args, ']'))
	return o.done()
}

// load reads a JSON Lines file's intent keys once. A last line without its
// newline (a write cut short) is cut off.
func (s *fileStore) load(file string) error {
	if s.written[file] != nil {
		return nil
	}
	path := filepath.Join(s.dir, file)
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if n := bytes.LastIndexByte(data, '\n'); n+1 < len(data) {
		if err := os.Truncate(path, int64(n+1)); err != nil {
			return err
		}
		data = data[:n+1]
	}
	keys := map[string]int{}
	line := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line++
		var r struct {
			Intent, Instance, Event string
			Seq                     uint64
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Intent != "" {
			keys[r.Intent] = line
		}
	}
	s.written[file], s.lines[file] = keys, line
	return nil
}

func (s *fileStore) appendRecord(store, file, key string, rec []byte, out *machine.Outcome) {
	path := filepath.Join(s.dir, file)
	out.Operation = "append " + file
	if err := s.load(file); err != nil {
		out.Code, out.Error = CodeStore, fmt.Sprintf("store %s: %v", store, err)
		return
	}
	if line, ok := s.written[file][key]; ok {
		out.OK, out.Result = true, storeResult(file, line, true)
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.Write(append(rec, '\n'))
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		out.Code, out.Error = CodeStore, fmt.Sprintf("store %s: %v", store, err)
		delete(s.written, file) // reload: the file may hold part of the line
		return
	}
	s.lines[file]++
	s.written[file][key] = s.lines[file]
	out.OK, out.Result = true, storeResult(file, s.lines[file], false)
}

func storeResult(file string, line int, dup bool) []byte {
	o := (&obj{}).str("file", file).raw("line", strconv.AppendInt(nil, int64(line), 10))
	return o.raw("duplicate", strconv.AppendBool(nil, dup)).done()
}

// project replaces the instance's entry of a read model: a JSON object by
// instance id, written to a temporary file and renamed over the old one.
func (s *fileStore) project(store, file, instance string, rec []byte, out *machine.Outcome) {
	path := filepath.Join(s.dir, file)
	out.Operation = "project " + file
	view := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &view)
	} else if os.IsNotExist(err) {
		err = nil
	}
	if err != nil {
		out.Code, out.Error = CodeStore, fmt.Sprintf("store %s: %s: %v", store, path, err)
		return
	}
	view[instance] = rec
	keys := make([]string, 0, len(view))
	for k := range view {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte("{\n")
	for k, key := range keys {
		b = append(trace.AppendString(append(b, "  "...), key), ": "...)
		b = append(b, view[key]...)
		if k < len(keys)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, "}\n"...)
	tmp, err := os.CreateTemp(s.dir, file+".tmp*")
	if err == nil {
		_, err = tmp.Write(b)
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		out.Code, out.Error = CodeStore, fmt.Sprintf("store %s: %v", store, err)
		return
	}
	out.OK, out.Result = true, (&obj{}).str("file", file).str("key", instance).done()
}

// query returns the facts whose "context" or "payload" has every field of
// the filter with the same value: {"facts": [...]}.
func (s *fileStore) query(store, file string, filter []byte, out *machine.Outcome) {
	out.Operation = "query " + file
	var want map[string]json.RawMessage
	json.Unmarshal(filter, &want)
	data, err := os.ReadFile(filepath.Join(s.dir, file))
	if err != nil && !os.IsNotExist(err) {
		out.Code, out.Error = CodeStore, fmt.Sprintf("store %s: %v", store, err)
		return
	}
	res := []byte(`{"facts":[`)
	n := 0
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		var r struct {
			Context map[string]json.RawMessage `json:"context"`
			Payload map[string]json.RawMessage `json:"payload"`
		}
		if len(line) == 0 || json.Unmarshal(line, &r) != nil {
			continue
		}
		match := true
		for k, v := range want {
			got, ok := r.Payload[k]
			if !ok {
				got, ok = r.Context[k]
			}
			match = match && ok && bytes.Equal(compactJSON(got), compactJSON(v))
		}
		if match {
			if n > 0 {
				res = append(res, ',')
			}
			res = append(res, line...)
			n++
		}
	}
	out.OK, out.Result = true, append(res, "]}"...)
}

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
