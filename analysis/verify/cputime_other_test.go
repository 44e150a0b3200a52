//go:build !unix

package verify

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return -1 }
