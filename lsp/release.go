package lsp

import (
	"runtime/debug"
	"time"
)

// releaseDelay is how long the server waits after a document is closed
// before it returns freed memory to the operating system: a burst of
// closes (an editor closing a workspace) releases once.
const releaseDelay = time.Second

// scheduleRelease returns the memory of closed documents, and of documents
// that have just gone over the size limit, to the operating system
// releaseDelay after the last such change; s.mu must be held. Without it
// the freed memory stays with the process: the Go runtime returns its own
// slowly (not at all until it next collects), and glibc keeps what
// tree-sitter freed.
func (s *Server) scheduleRelease() {
	if s.release != nil {
		s.release.Stop()
	}
	s.release = time.AfterFunc(releaseDelay, releaseMemory)
}

// releaseMemory collects garbage and returns free memory, Go's and the C
// heap's, to the operating system.
func releaseMemory() {
	debug.FreeOSMemory()
	trimCHeap()
}
