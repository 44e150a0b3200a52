//go:build !linux

package chain

import "os"

func syncData(f *os.File) error { return f.Sync() }
