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
	desc, snap := r.enc.Instance(i), r.enc.Snapshot(i, nil)
	if err := r.w.put(r.enc.vouched(), desc, snap); err != nil {
		return err
	}
	return r.Flush()
}

// Input implements machine.Observer.
func (r *Recorder) Input(i *machine.Instance, in *machine.Input) error {
	p := r.enc.Input(in)
	return r.w.put(r.enc.vouched(), p)
}

// Committed implements machine.Observer. In live mode the step's intents
// are made durable before any effect executes (write-ahead).
func (r *Recorder) Committed(i *machine.Instance, res *machine.StepResult) error {
	p := r.enc.Step(res)
	if err := r.w.put(r.enc.vouched(), p); err != nil {
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
		err = r.w.put(r.enc.vouched(), fx)
	}
	if err == nil && res.Failure == nil {
		p := r.enc.Snapshot(i, res)
		err = r.w.put(r.enc.vouched(), p)
	}
	if tr := r.enc.Trace(res); err == nil && tr != nil {
		err = r.w.put(r.enc.vouched(), tr)
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
	doubted  int             // payloads in queue their encoder did not vouch for
	cw       canonicalWriter // nil: the store cannot skip the check
	spare    [][]byte        // an empty queue to reuse
	idle     bool            // the write loop waits for records
	queued   uint64          // records ever queued
	wrote    uint64          // records handed to the store
	written  uint64          // records durably written
	err      error
	closed   bool
	running  bool // the write loop runs
	syncing  bool // the sync loop runs
	finished chan struct{}
	synced   chan struct{}
}

// canonicalWriter is a deferredStore that can write payloads canonical
// by construction without checking them again (chain.File's
// WriteCanonical). The recorder uses it for batches of payloads all
// vouched for by its encoder.
type canonicalWriter interface {
	writeCanonical(payloads [][]byte) error
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
		w.cw, _ = s.(canonicalWriter)
		w.syncing = true
		go w.syncLoop()
	} else {
		close(w.synced)
	}
	go w.loop()
	return w
}

var errClosed = errors.New("ledger: recorder is closed")

// put queues payloads; vouched says that the encoder vouches for all of
// them being canonical by construction.
func (w *writer) put(vouched bool, ps ...[]byte) error {
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
	if !vouched {
		w.doubted += len(ps)
	}
	w.queued += uint64(len(ps))
	// Only the write loop waits for records to be queued; waking the
	// other waiters (the sync loop, Flush) for nothing would cost a
	// context switch per record.
	if w.idle {
		w.cond.Broadcast()
	}
	return nil
}

func (w *writer) loop() {
	defer close(w.finished)
	w.mu.Lock()
	for {
		for len(w.queue) == 0 && !w.closed {
			w.idle = true
			w.cond.Wait()
			w.idle = false
		}
		if len(w.queue) == 0 && w.closed {
			w.running = false
			w.cond.Broadcast()
			w.mu.Unlock()
			return
		}
		batch, checked := w.queue, w.doubted == 0
		w.queue, w.doubted = w.spare, 0
		w.spare = nil
		w.mu.Unlock()
		var err error
		switch {
		case w.cw != nil && checked:
			err = w.cw.writeCanonical(batch)
			// The store kept nothing: the batch's slice can hold a
			// later queue.
			clear(batch)
			w.mu.Lock()
			w.spare = batch[:0]
			w.mu.Unlock()
		case w.ds != nil:
			err = w.ds.Write(batch)
		default:
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
