//go:build !unix

package chain

import (
	"errors"
	"os"
	"time"
)

func lockFile(f *os.File, timeout time.Duration) error {
	return errors.New("chain: file locking is not supported on this system")
}

func unlockFile(f *os.File) {}
