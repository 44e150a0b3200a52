//go:build !unix

package main

import "time"

// cpuTime is 0 where the process's CPU time is not available; the
// benchmarks then report no cpu-MB/s.
func cpuTime() time.Duration { return 0 }
