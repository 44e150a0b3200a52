package lsp

// This file holds the language server's soft memory limit policy.

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// limitEighths is the soft memory limit AdaptMemoryLimit sets, in eighths
// of the live heap.
const limitEighths = 16 // twice

// AdaptMemoryLimit sets the soft memory limit to floor and, after every
// garbage collection, to floor or twice the live heap, whichever is
// larger, until stop is called. A fixed limit below the live heap has the
// collector run without pause (up to the runtime's cap of half the CPU),
// which on a 100,000-line document costs more than the edits themselves.
// Twice the live heap is where GOGC=100 would start the next collection
// anyway: above the floor the limit then bounds the heap without making
// the collector run more often (measured on 100,000 lines: about 80 ms of
// CPU per edit with a fixed 64 MiB, 22 ms with 1.5 times the live heap,
// 12 ms with twice).
//
// With limitOnly the limit alone paces the collector (GOGC is off until
// stop): below the floor a collection then starts when the heap nears
// the floor rather than when it has doubled. A 10,000-line document holds
// about 8 MB and an edit allocates a copy of its text, so with GOGC=100
// the collector ran every 15 to 20 edits and took about half the
// server's CPU per edit; with the floor it runs about a seventh as often
// (bench/lspbench, docs/lsp.md "Memory"). Above the floor nothing
// changes, since twice the live heap is where GOGC=100 starts a cycle.
func AdaptMemoryLimit(floor int64, limitOnly bool) (stop func()) {
	debug.SetMemoryLimit(floor)
	percent := -1
	if limitOnly {
		percent = debug.SetGCPercent(-1)
	}
	var stopped atomic.Bool
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		// A finalizer runs once its object is found unreachable, that is
		// after a collection; it sets the limit and arms the next one.
		s := new([16]byte)
		runtime.SetFinalizer(s, func(*[16]byte) {
			if stopped.Load() {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				live := int64(sample[0].Value.Uint64())
				debug.SetMemoryLimit(max(floor, live*limitEighths/8))
			}
			arm()
		})
	}
	arm()
	return func() {
		stopped.Store(true)
		if limitOnly {
			debug.SetGCPercent(percent)
		}
	}
}
