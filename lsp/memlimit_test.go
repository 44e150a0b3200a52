package lsp

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestAdaptMemoryLimit holds AdaptMemoryLimit to its doc: the limit
// starts at the floor, follows twice the live heap once that is above the
// floor, and with limitOnly the collector is paced by the limit alone
// (GOGC off) until stop puts the previous GOGC back.
func TestAdaptMemoryLimit(t *testing.T) {
	const floor = 64 << 20
	limit0, percent0 := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(percent0)
	t.Cleanup(func() {
		debug.SetMemoryLimit(limit0)
		debug.SetGCPercent(percent0)
	})
	for _, limitOnly := range []bool{false, true} {
		debug.SetGCPercent(150)
		stop := AdaptMemoryLimit(floor, limitOnly)
		// SetGCPercent returns the setting it replaces: set it back at once.
		percent := debug.SetGCPercent(150)
		debug.SetGCPercent(percent)
		if want := map[bool]int{false: 150, true: -1}[limitOnly]; percent != want {
			t.Errorf("limitOnly %v: GOGC is %d while the limit adapts, want %d", limitOnly, percent, want)
		}
		if got := debug.SetMemoryLimit(-1); got != floor {
			t.Errorf("limitOnly %v: limit %d at the start, want the floor %d", limitOnly, got, floor)
		}
		// A live heap of 48 MiB more: after a collection the limit is
		// twice the live heap.
		runtime.GC()
		live0 := liveHeap()
		live := make([][]byte, 48)
		for i := range live {
			live[i] = make([]byte, 1<<20)
		}
		var got int64
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			runtime.GC()
			if got = debug.SetMemoryLimit(-1); got >= 96<<20 {
				break
			}
		}
		if hi := 2*(48<<20+live0) + 16<<20; got < 96<<20 || got > hi {
			t.Errorf("limitOnly %v: limit %d MiB with 48 MiB live besides %d MiB, want twice the live heap (from 96 to %d MiB)", limitOnly, got>>20, live0>>20, hi>>20)
		}
		runtime.KeepAlive(live)
		stop()
		if percent := debug.SetGCPercent(100); percent != 150 {
			t.Errorf("limitOnly %v: GOGC %d after stop, want the 150 set before", limitOnly, percent)
		}
		// After stop, a collection leaves the limit where it was (once a
		// finalizer that ran before stop, and may still set it, is done).
		live = nil
		runtime.GC()
		runtime.GC()
		time.Sleep(200 * time.Millisecond)
		debug.SetMemoryLimit(floor)
		runtime.GC()
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
		if got := debug.SetMemoryLimit(-1); got != floor {
			t.Errorf("limitOnly %v: limit %d after stop and a collection, want %d unchanged", limitOnly, got, floor)
		}
	}
}

// liveHeap reads the live heap the last collection measured, in bytes.
func liveHeap() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return int64(sample[0].Value.Uint64())
}
