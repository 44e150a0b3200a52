package ledger

import (
	"errors"
	"sync"

	"github.com/capsulang/caps/runtime/machine"
)

// Recorder writes an instance's records to a Store: it is the instance's
// machine.Observer. Records are queued and written by a background
// goroutine, which writes everything queued while the previous write was
// in progress as one batch (one fsync): group commit.
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

// writer is the group-commit queue in front of a Store.
type writer struct {
	store    Store
	max      int
	mu       sync.Mutex
	cond     *sync.Cond
	queue    [][]byte
	queued   uint64 // records ever queued
	written  uint64 // records durably written
	err      error
	closed   bool
	running  bool
	finished chan struct{}
}

func newWriter(s Store, max int) *writer {
	w := &writer{store: s, max: max, finished: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	w.running = true
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
		err := w.store.Append(batch)
		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
		}
		if err == nil {
			w.written += uint64(len(batch))
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

func (w *writer) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	target := w.queued
	for w.written < target && w.err == nil && w.running {
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
	cerr := w.store.Close()
	if ferr != nil && !errors.Is(ferr, errClosed) {
		return ferr
	}
	if ferr != nil {
		return ferr
	}
	return cerr
}
