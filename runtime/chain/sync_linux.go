package chain

import (
	"os"
	"syscall"
)

// syncData flushes f's data and the metadata needed to read it back
// (including its size) with fdatasync.
func syncData(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
