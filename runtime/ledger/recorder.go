package ledger

import (
	"errors"
	"sync"

	"github.com/capsulang/caps/runtime/machine"
)

// Recorder writes an instance's records to a Store: it is the instance's
// machine.Observer. Records are queued and written by a background
// goroutine, which writes everything queued while the previous write was
// in progress as one batch: group commit. With a chain file, a second
// goroutine fsyncs what was written while the next batch is written.
type Recorder struct {
	enc  *Encoder
	w    *writer
	sync Sync
	live bool
}

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// ModulePath is the module's path, recorded in the descriptor so that
	// a replay can find the module again.
	ModulePath string
	// Sync is the policy: SyncGroup (default), SyncStep or SyncNone. The
	// store's own fsync setting must agree (CreateDir does this).
	Sync Sync
	// MaxQueue bounds the records waiting to be written; an instance
	// stepping faster than the store writes waits. 0 means 65536.
	MaxQueue int
}

// NewRecorder returns a recorder for instances of m writing to store.
// Close it to flush and close the store.
func NewRecorder(m *machine.Machine, store Store, opts RecorderOptions) *Recorder {
	if opts.MaxQueue <= 0 {
		opts.MaxQueue = 65536
	}
	return &Recorder{enc: NewEncoder(m, opts.ModulePath), w: newWriter(store, opts.MaxQueue), sync: opts.Sync}
}

// Encoder returns the recorder's encoder.
func (r *Recorder) Encoder() *Encoder { return r.enc }

// Start implements machine.Observer: the descriptor and the initial
// snapshot.
func (r *Recorder) Start(i *machine.Instance) error {
	r.live = i.Mode() == machine.Live
	if err := r.w.put(r.enc.Instance(i), r.enc.Snapshot(i, nil)); err != nil {
		return err
	}
	return r.Flush()
}

// Input implements machine.Observer.
func (r *Recorder) Input(i *machine.Instance, in *machine.Input) error {
	return r.w.put(r.enc.Input(in))
}

// Committed implements machine.Observer. In live mode the step's intents
// are made durable before any effect executes (write-ahead).
func (r *Recorder) Committed(i *machine.Instance, res *machine.StepResult) error {
	if err := r.w.put(r.enc.Step(res)); err != nil {
		return err
	}
	if r.live && res.Failure == nil && len(res.Effects) > 0 {
		return r.Flush()
	}
	return nil
}

// Finished implements machine.Observer.
func (r *Recorder) Finished(i *machine.Instance, res *machine.StepResult) error {
	var err error
	if fx := r.enc.Effects(res); fx != nil {
		err = r.w.put(fx)
	}
	if err == nil && res.Failure == nil {
		err = r.w.put(r.enc.Snapshot(i, res))
	}
	if tr := r.enc.Trace(res); err == nil && tr != nil {
		err = r.w.put(tr)
	}
	if err == nil && r.sync == SyncStep {
		err = r.Flush()
	}
	return err
}

// Flush waits until every record queued so far is durable: the steps
// taken so far are acknowledged.
func (r *Recorder) Flush() error { return r.w.flush() }

// Close flushes and closes the store.
func (r *Recorder) Close() error { return r.w.close() }

// writer is the group-commit queue in front of a Store. With a store that
// can write without waiting for durability (a deferredStore, such as a
// ChainStore over a chain file), writing and syncing are pipelined: one
// goroutine writes each batch while another syncs what was written
// before, so the CPU work of a batch overlaps the fsync of the previous
// one. Records count as written (acknowledged) once a sync that started
// after their write returns.
type writer struct {
	store    Store
	ds       deferredStore // nil: Append is durable by itself
	max      int
	mu       sync.Mutex
	cond     *sync.Cond
	queue    [][]byte
	queued   uint64 // records ever queued
	wrote    uint64 // records handed to the store
	written  uint64 // records durably written
	err      error
	closed   bool
	running  bool // the write loop runs
	syncing  bool // the sync loop runs
	finished chan struct{}
	synced   chan struct{}
}

// deferredStore is a Store whose writes can be made durable later, in
// the background.
type deferredStore interface {
	// Write appends the payloads like Store.Append, without waiting for
	// them to be durable.
	Write(payloads [][]byte) error
	// Sync makes everything written before it was called durable.
	Sync() error
}

func newWriter(s Store, max int) *writer {
	w := &writer{store: s, max: max, finished: make(chan struct{}), synced: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	w.running = true
	if ds, ok := s.(deferredStore); ok {
		w.ds = ds
		w.syncing = true
		go w.syncLoop()
	} else {
		close(w.synced)
	}
	go w.loop()
	return w
}

var errClosed = errors.New("ledger: recorder is closed")

func (w *writer) put(ps ...[]byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) >= w.max && w.err == nil && !w.closed {
		w.cond.Wait()
	}
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	w.queue = append(w.queue, ps...)
	w.queued += uint64(len(ps))
	w.cond.Broadcast()
	return nil
}

func (w *writer) loop() {
	defer close(w.finished)
	w.mu.Lock()
	for {
		for len(w.queue) == 0 && !w.closed {
			w.cond.Wait()
		}
		if len(w.queue) == 0 && w.closed {
			w.running = false
			w.cond.Broadcast()
			w.mu.Unlock()
			return
		}
		batch := w.queue
		w.queue = nil
		w.mu.Unlock()
		var err error
		if w.ds != nil {
			err = w.ds.Write(batch)
		} else {
			err = w.store.Append(batch)
		}
		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
		}
		if err == nil {
			w.wrote += uint64(len(batch))
			if w.ds == nil {
				w.written = w.wrote
			}
		}
		w.cond.Broadcast()
		if w.err != nil {
			w.running = false
			w.queue = nil
			w.mu.Unlock()
			return
		}
	}
}

// syncLoop syncs whatever has been written, as long as the write loop
// runs and until everything it wrote is durable.
func (w *writer) syncLoop() {
	defer close(w.synced)
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for w.written == w.wrote && w.err == nil && w.running {
			w.cond.Wait()
		}
		if w.err != nil || w.written == w.wrote {
			w.syncing = false
			w.cond.Broadcast()
			return
		}
		target := w.wrote
		w.mu.Unlock()
		err := w.ds.Sync()
		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
		}
		if err == nil {
			w.written = target
		}
		w.cond.Broadcast()
	}
}

func (w *writer) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	target := w.queued
	for w.written < target && w.err == nil && (w.running || w.syncing) {
		w.cond.Wait()
	}
	if w.err != nil {
		return w.err
	}
	if w.written < target {
		return errClosed
	}
	return nil
}

func (w *writer) close() error {
	ferr := w.flush()
	w.mu.Lock()
	w.closed = true
	w.cond.Broadcast()
	w.mu.Unlock()
	<-w.finished
	<-w.synced
	cerr := w.store.Close()
	if ferr != nil {
		return ferr
	}
	return cerr
}
